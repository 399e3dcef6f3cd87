// Cancelling a spawn: the abort is honoured at every point of the actor's life, start-up included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, codeOf, failure, startRuntime, until, type TestRuntime } from './helpers.js';

const SLOW = 'src/runtime/testing/fixture-slow-start.js';
let env: TestRuntime;
beforeAll(async () => {
  env = await startRuntime({ spares: 1 });
});
afterAll(async () => {
  await env.rt.shutdown(3000);
});

const children = (task: string): string[] =>
  env.rt.snapshot().children.find((c) => c.name === 'tasks')?.children.find((t) => t.name === `task:${task}`)?.children.map((c) => c.name) ?? [];

describe('spawn cancellation', () => {
  it('a cancel during actor start-up stops the child and rejects the spawn with CANCELLED', async () => {
    const task = await env.rt.startTask('cancel-start');
    const ctl = new AbortController();
    const t0 = Date.now();
    // the module takes 10 s to load, so the cancel lands while the child is still starting
    const result = failure(task.spawn({ name: 'slow', module: SLOW, input: null }, ctl.signal));
    await until(() => env.rt.liveActors().includes('slow'), 20_000, 'slow start begun');
    ctl.abort(new Error('user cancelled'));
    const err = await result;
    expect(codeOf(err)).toBe('CANCELLED');
    // the load alone ends 10 s after the spawn: a cancel that waited for it could not settle sooner (bounded by the
    // fixture, not by how fast a loaded machine is)
    expect(Date.now() - t0).toBeLessThan(10_000);
    await until(() => !env.rt.liveActors().includes('slow'), 20_000, 'slow worker gone');
    expect(children('cancel-start')).toEqual([]);
  });

  it('a cancel after start-up stops the running child and rejects the spawn with CANCELLED', async () => {
    const task = await env.rt.startTask('cancel-run');
    const ctl = new AbortController();
    const result = failure(task.spawn({ name: 'waiter', module: FIXTURE, input: { mode: 'wait_stop', slot: 2 } }, ctl.signal));
    await until(() => Atomics.load(env.starts, 2) === 1, 20_000, 'waiter running');
    ctl.abort(new Error('user cancelled'));
    const err = await result;
    expect(codeOf(err)).toBe('CANCELLED');
    // what run() returned while it stopped travels with the cancel (a cancelled agent's usage reaches its caller)
    expect((err as { result?: unknown }).result).toBe('stopped');
    await until(() => !env.rt.liveActors().includes('waiter'), 20_000, 'waiter worker gone');
    expect(children('cancel-run')).toEqual([]);
  });
});
