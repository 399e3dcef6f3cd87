// The index cache goes through the store (the data root's one writer), private, and a new engine adopts it.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { ManualClock, realClock } from '../../src/runtime/clock.js';
import { storeIn, tempRoot } from '../store/helpers.js';
import { TS_FILES, tempRepo } from './fixtures.js';

const home = tempRoot();
const ws = tempRepo(TS_FILES);
afterAll(() => {
  home.cleanup();
  rmSync(ws, { recursive: true, force: true });
});

it('a second engine answers from the cached index without parsing, and the cache files are private', async () => {
  const store = storeIn(home.dir);
  const cache = { read: (k: string) => store.readCodeIndex(k), write: (k: string, d: string) => store.writeCodeIndex(k, d) };
  const first = new CodeSeek({ tasks: createTaskGroup(), clock: realClock, cache });
  expect((await first.settle(ws))?.parsed).toBe(2);
  const second = new CodeSeek({ tasks: createTaskGroup(), clock: realClock, cache });
  expect((await second.status(ws)).indexed).toBe(2); // adopted before any refresh
  expect(await second.settle(ws)).toMatchObject({ parsed: 0, reused: 2 });
  expect((await second.ask(ws, { op: 'callers', name: 'add' })).text).toContain('3 call site(s)');
  expect(execFileSync('find', [home.dir, '-perm', '/077'], { encoding: 'utf8' })).toBe('');
  await expect(store.writeCodeIndex('../escape', '{}')).rejects.toThrow(/bad code index key/);
});

it('a question waits for the index, never for its cache write (the image of a big workspace is tens of ms of JSON)', async () => {
  let release!: () => void;
  const written = new Promise<void>((r) => (release = r));
  let wrote!: (key: string) => void;
  const writing = new Promise<string>((r) => (wrote = r));
  // a write that never completes on its own, and a clock that never fires: the answer can wait for nothing else
  const cache = { read: async () => null, write: async (k: string) => (wrote(k), written) };
  const cs = new CodeSeek({ tasks: createTaskGroup(), clock: new ManualClock(0), cache });
  const answer = await cs.ask(ws, { op: 'callers', name: 'add' });
  expect(answer.text).toContain('3 call site(s)');
  expect(answer.status.building).toBe(false);
  const settled = cs.settle(ws); // settle still waits for the write
  await writing;
  release();
  expect(await settled).toMatchObject({ parsed: 0, reused: 2 }); // the refresh settle starts after the first one ended
});
