// Durability errors are never swallowed: a failing stop() hook of the store actor (its final flush) is
// reported by the runtime, and an unparseable settings.json is moved aside before it is replaced.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import type { StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import { storeIn, tempRoot } from './helpers.js';

const t = tempRoot('yagent-durability-');
afterAll(() => t.cleanup());

describe('durability errors', () => {
  it("a failing final flush in the store actor's stop() is reported by the runtime, not swallowed", async () => {
    expect(existsSync(resolve('dist', STORE_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
    const root = join(t.dir, 'flush');
    mkdirSync(root, { recursive: true });
    const rt = await Runtime.start({ preload: ['zod'], spares: 0 });
    try {
      await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root, notesRoot: join(root, 'notes') } });
      const store = rt.connect<StoreApi>(STORE_ACTOR);
      await store.readSettings(); // the store serves
      writeFileSync(join(root, 'tasks'), 'a file where the task memory directory should be\n'); // every task-memory write fails
      await store.saveTaskMemory('T-lost', { messages: [{ role: 'user', content: 'cannot be written' }], max_size: 10 });
    } finally {
      await rt.shutdown();
    }
    const failures = rt.stopFailures();
    expect(failures.map((f) => f.actor)).toEqual([STORE_ACTOR]);
    expect(failures[0]?.error.message).toMatch(/task memory flush failed: T-lost/);
  }, 30_000);

  it('an unparseable settings.json is moved aside (settings.json.bad-<ts>) before it is replaced', async () => {
    const root = join(t.dir, 'settings');
    mkdirSync(root, { recursive: true });
    const s = storeIn(root);
    await s.readSettings();
    writeFileSync(join(root, 'settings.json'), '{"authorized_projects": ["/kept/by/hand"], oops');
    await s.authorizeProject('/p');
    expect((await s.readSettings()).authorized_projects).toEqual(['/p']);
    const aside = readdirSync(root).filter((n) => n.startsWith('settings.json.bad-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(root, aside[0] ?? ''), 'utf8')).toBe('{"authorized_projects": ["/kept/by/hand"], oops');
  });
});
