import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import type { StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import { taskMemoryPath } from '../../src/store/task-memory.js';
import { handoff, meta, tempRoot } from './helpers.js';

const t = tempRoot('yagent-actor-');
afterAll(() => t.cleanup());

describe('store actor in a real worker', () => {
  it('serves the StoreApi over RPC, errors cross as data, and stop() makes pending writes durable', async () => {
    expect(existsSync(resolve('dist', STORE_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
    process.env.YAGENT_HOME = t.dir;
    const rt = await Runtime.start({ preload: ['zod'], spares: 0 });
    try {
      await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: t.dir, notesRoot: `${t.dir}/notes` } });
      const store = rt.connect<StoreApi>(STORE_ACTOR);
      const h = await store.openRollout(meta({ sessionId: 'worker' }));
      await store.appendRollout(h.path, [{ type: 'response_item', ts: 1, payload: { role: 'user', content: 'hello' } }]);
      const cp = await store.writeCheckpoint(h.path, { step: 1, stopReason: 'paused', model: 'm', delegationId: null });
      const replay = await store.readReplay(h.path);
      expect(replay.ok && replay.fingerprint).toBe(cp.fingerprint);
      const note = await store.writeNote({ boardId: 'b', agent: 'repo', handoff: handoff(), body: '@coding over to you' });
      expect(note.handoff.mentions).toEqual(['coding']);
      await expect(store.writeNote({ boardId: '', agent: 'repo', handoff: handoff(), body: 'x' })).rejects.toMatchObject({ code: 'EMPTY_BOARD' });
      await store.saveTaskMemory('T-stop', { messages: [{ role: 'user', content: 'keep me' }], max_size: 10 });
    } finally {
      await rt.shutdown();
    }
    // the 5 s debounce had not fired: only the actor's stop hook could have written it
    expect(readFileSync(taskMemoryPath(t.dir, 'T-stop'), 'utf8')).toContain('keep me');
  }, 30_000);
});
