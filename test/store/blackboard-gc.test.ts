// Scheduled blackboard GC: a named task beside writes, re-armed on the store clock, started by the store actor.
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import type { GcReport, StoreApi } from '../../src/store/api.js';
import { GC_TASK } from '../../src/store/blackboard/gc-schedule.js';
import { STORE_ACTOR, STORE_MODULE, storeInputFromConfig } from '../../src/store/client.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { cfg } from '../config/helpers.js';
import { handoff, storeIn, tempRoot } from './helpers.js';

const t = tempRoot('yagent-gc-');
afterAll(() => t.cleanup());
let n = 0;
const notesDir = (): string => join(t.dir, `notes-${++n}`);
const EMPTY: GcReport = { removedNotes: 0, removedBoards: 0, skippedSymlinks: 0 };

/** Fails the test instead of hanging when `p` does not settle (a write stuck behind GC). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle in ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

describe('scheduled blackboard GC', () => {
  it('GcNeverBlocksANoteWrite: a note write resolves while a GC pass is still in flight', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const s = storeIn(t.dir, { notesRoot: notesDir(), gcImpl: async () => { await held; return EMPTY; } });
    const tasks = createTaskGroup();
    const gc = s.scheduleGc(tasks, { ttlMs: 1, maxNotesPerBoard: 0 });
    expect(tasks.running()).toEqual([GC_TASK]);
    const note = await within(s.writeNote({ boardId: 'busy', agent: 'repo', handoff: handoff(), body: 'x' }), 20_000, 'writeNote');
    expect((await s.listNotes('busy')).map((m) => m.ref)).toEqual([note.ref]);
    expect(tasks.running()).toEqual([GC_TASK]);
    release();
    await gc?.settled();
    gc?.stop();
    expect(tasks.running()).toEqual([]);
  });

  it('GC passes re-arm on the store clock, never overlap, and stop with the store', async () => {
    const clock = new ManualClock(Date.now());
    const s = storeIn(t.dir, { notesRoot: notesDir(), clock });
    const gc = s.scheduleGc(createTaskGroup(), { ttlMs: 0, maxNotesPerBoard: 2 }, 1000);
    await gc?.settled();
    expect(gc?.armed).toBe(true);
    for (let i = 0; i < 4; i++) await s.writeNote({ boardId: 'cap', agent: 'repo', handoff: handoff(), body: `${i}` });
    clock.advance(999);
    await gc?.settled();
    expect(await s.listNotes('cap')).toHaveLength(4);
    clock.advance(1);
    await gc?.settled();
    expect(await s.listNotes('cap')).toHaveLength(2);
    gc?.stop();
    expect(gc?.armed).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it('options that clean nothing schedule nothing', () => {
    const s = storeIn(t.dir, { notesRoot: notesDir() });
    expect(s.scheduleGc(createTaskGroup(), { ttlMs: 0, maxNotesPerBoard: 0 })).toBeNull();
  });

  it('the store actor runs GC at start with the config it is given (ttl + cap), in a real worker', async () => {
    expect(existsSync(resolve('dist', STORE_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
    const root = join(t.dir, 'actor-home');
    const notes = join(root, 'notes');
    const seed = storeIn(root, { notesRoot: notes });
    const aged = await seed.writeNote({ boardId: 'aged', agent: 'repo', handoff: handoff(), body: 'old' });
    utimesSync(join(notes, 'aged', `${aged.ref}.md`), new Date(0), new Date(0));
    for (let i = 0; i < 4; i++) await seed.writeNote({ boardId: 'full', agent: 'coding', handoff: handoff(), body: `${i}` });
    const rt = await Runtime.start({ preload: ['zod'], spares: 0 });
    try {
      const input = { root, notesRoot: notes, ...storeInputFromConfig(cfg('[blackboard]\nttl = "1h"\nmax_notes_per_board = 2')) };
      await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input });
      const store = rt.connect<StoreApi>(STORE_ACTOR);
      await vi.waitFor(() => {
        expect(existsSync(join(notes, 'aged'))).toBe(false);
        expect(readdirSync(join(notes, 'full', 'coding'))).toHaveLength(2);
      }, { timeout: 20_000, interval: 20 });
      // the private run file goes through the same single writer
      const path = await store.writeRunFile('supervisor-1.json', '{"pid":1}\n');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      await store.removeRunFile('supervisor-1.json');
      expect(existsSync(path)).toBe(false);
    } finally {
      await rt.shutdown();
    }
  }, 30_000);
});
