// Task memory is saved from the task (the Director's conversation) and is on disk when runTask returns.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/actors/agents/run-task.js';
import { decodeMemory, taskMemoryPath } from '../../src/store/task-memory.js';
import type { StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR } from '../../src/store/client.js';
import { world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
}, 60_000);
afterAll(async () => w?.close());

describe('task memory', () => {
  it('the Director conversation is saved as task memory and flushed when the task ends (no 5 s wait)', async () => {
    w.fake.script('director', ...Array.from({ length: 4 }, () => ({ text: 'hello back' })));
    const r = await runTask(w.rt, { ...w.base, prompt: 'say hello', taskId: 'mem-1' });
    expect(r.stopReason).toBe('plain_text');
    // straight from disk: the store's debounce (5 s) has not fired, so only the end-of-task flush wrote it
    const mem = decodeMemory(readFileSync(taskMemoryPath(w.home, 'mem-1'), 'utf8'));
    const contents = mem?.messages.map((m) => m.content) ?? [];
    expect(contents).toContain('say hello');
    expect(contents).toContain('hello back');
    expect(mem?.messages[0]?.role).toBe('system');
    const viaStore = await w.rt.connect<StoreApi>(STORE_ACTOR).loadTaskMemory('mem-1');
    expect(viaStore?.messages.length).toBe(mem?.messages.length);
  });
});
