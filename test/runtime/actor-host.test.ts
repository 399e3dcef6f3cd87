// Actor host rules on real workers: terminate after shutdownMs, crash isolation, exit reasons, RPC, help.
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventOf } from '../../src/runtime/protocol/index.js';
import { FIXTURE, SERVICE, codeOf, failure, startRuntime, until, type TestRuntime } from './helpers.js';

let env: TestRuntime;
beforeAll(async () => {
  env = await startRuntime({ spares: 2, rpcTimeoutMs: 20_000 });
  await env.rt.startService({ name: 'svc', module: SERVICE, input: { label: 'svc' }, shutdownMs: 500 });
});
afterAll(async () => {
  await env.rt.shutdown(3000);
});

const taskChildren = (task: string): string[] =>
  env.rt.snapshot().children.find((c) => c.name === 'tasks')?.children.find((t) => t.name === `task:${task}`)?.children.map((c) => `${c.name}:${c.state}`) ?? [];

const svcNode = () => env.rt.snapshot().children.find((c) => c.name === 'services')?.children.find((c) => c.name === 'svc');

interface Svc {
  echo(v: unknown): { v: unknown; label: string; starts: number };
  fail(): never;
  hang(): never;
  die(): string;
  slow(ms: number): number;
}

describe('actor lifecycle', () => {
  it('a worker spinning in for(;;){} is terminated after shutdownMs', async () => {
    const task = await env.rt.startTask('spin');
    const result = task.spawn({ name: 'spinner', module: FIXTURE, input: { mode: 'spin', slot: 0 }, shutdownMs: 300 }).catch((e: unknown) => e);
    await until(() => Atomics.load(env.starts, 0) === 1, 20_000, 'spinner spinning');
    const t0 = Date.now();
    await task.supervisor.terminateChild('spinner');
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(20_000); // a spinning worker never stops by itself: only the forced terminate ends it
    expect(codeOf(await result)).toBe('ACTOR_EXITED');
  });

  it('a crashing actor leaves its siblings running', async () => {
    const task = await env.rt.startTask('siblings');
    const sibling = task.spawn({ name: 'steady', module: FIXTURE, input: { mode: 'wait_stop', slot: 1 } }).catch((e: unknown) => e);
    const crash = await failure(task.spawn({ name: 'crasher', module: FIXTURE, input: { mode: 'crash', delayMs: 20 } }));
    expect(codeOf(crash)).toBe('ACTOR_CRASHED');
    expect(taskChildren('siblings')).toEqual(['steady:running']);
    expect(Atomics.load(env.starts, 1)).toBe(1);
    await env.rt.endTask('siblings');
    expect(codeOf(await sibling)).toBe('ACTOR_EXITED');
  });

  it('worker exit code, uncaught error and out-of-memory are reported with a reason', async () => {
    const task = await env.rt.startTask('reasons');
    const exitErr = await failure(task.spawn({ name: 'exit', module: FIXTURE, input: { mode: 'exit_code', code: 3 } }));
    expect(exitErr.message).toContain('exited with code 3');
    const uncaught = await failure(task.spawn({ name: 'uncaught', module: FIXTURE, input: { mode: 'uncaught' } }));
    expect(codeOf(uncaught)).toBe('ACTOR_CRASHED');
    expect(uncaught.message).toContain('uncaught in worker');
    const oom = await failure(task
      .spawn({ name: 'oom', module: FIXTURE, input: { mode: 'oom' }, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 } }));
    expect(codeOf(oom)).toBe('ACTOR_OOM');
    expect(oom.message).toContain('out_of_memory');
  });

  it('an unknown actor module fails to start with a clear error', async () => {
    const task = await env.rt.startTask('missing');
    const err = await failure(task.spawn({ name: 'ghost', module: 'src/nowhere/ghost.js', input: null }));
    expect(err.message).toMatch(/ghost/);
    expect(taskChildren('missing')).toEqual([]);
  });

  it('drain names a stuck actor that outlives the drain timeout', async () => {
    const { rt, starts } = await startRuntime();
    await rt.startTask('stuck');
    void rt.spawn('stuck', { name: 'delegation:call_1:spinner', module: FIXTURE, input: { mode: 'spin', slot: 0 }, shutdownMs: 1500 }).catch(() => undefined);
    await until(() => Atomics.load(starts, 0) === 1, 20_000, 'spinner spinning');
    expect(await rt.drain(200)).toEqual(['delegation:call_1:spinner']);
    expect(await rt.shutdown(20_000)).toEqual([]); // the forced stop after 1.5 s ends it; the timeout only bounds a hang
  });
});

describe('rpc', () => {
  it('a served actor answers typed calls and errors cross as data with their code', async () => {
    const svc = env.rt.connect<Svc>('svc');
    expect((await svc.echo({ a: 1 })).v).toEqual({ a: 1 });
    const err = await failure(svc.fail());
    expect(codeOf(err)).toBe('FIXTURE_FAIL');
    expect(err.message).toBe('served failure');
  });

  it('every call has a timeout', async () => {
    const svc = env.rt.connect<Svc>('svc', { timeoutMs: 100 });
    expect(codeOf(await failure(svc.hang()))).toBe('RPC_TIMEOUT');
  });

  it('a pending RPC rejects when its worker dies', async () => {
    const svc = env.rt.connect<Svc>('svc', { timeoutMs: 20_000 });
    const before = (await svc.echo(0)).starts;
    const pending = svc.hang().catch((e: unknown) => e);
    const t0 = Date.now();
    // die() may or may not get its own reply out before the worker exits; the pending hang() must reject either way.
    await env.rt.connect<Svc>('svc').die().catch(() => undefined);
    expect(codeOf(await pending)).toBe('PORT_CLOSED');
    expect(Date.now() - t0).toBeLessThan(20_000); // before the RPC's own 20 s timeout: the worker's death ended it
    // permanent service: once restarted, a later call on the same proxy reaches the new incarnation
    await until(() => svcNode()?.restarts === 1 && svcNode()?.state === 'running', 20_000, 'svc restarted');
    expect((await svc.echo(1)).starts).toBe(before + 1);
  });

  it('actors connect to a served actor worker-to-worker by name', async () => {
    const task = await env.rt.startTask('connect');
    const out = await task.spawn<unknown, { v: string; label: string }>({ name: 'caller', module: FIXTURE, input: { mode: 'call_service', service: 'svc', method: 'echo', args: ['hi'] } });
    expect(out).toMatchObject({ v: 'hi', label: 'svc' });
  });
});

describe('context round trips', () => {
  it('spawn from inside an actor starts a child under the task and binds its delegationId', async () => {
    const task = await env.rt.startTask('nested');
    const out = await task.spawn({ name: 'parent', module: FIXTURE, input: { mode: 'spawn_child', child: { name: 'delegation:c1:repo', input: { mode: 'echo', value: 7 } } } });
    expect(out).toEqual({ value: 7, name: 'delegation:c1:repo', taskId: 'nested', delegationId: 'delegation:c1:repo' });
    const crashed = await failure(task.spawn({ name: 'parent2', module: FIXTURE, input: { mode: 'spawn_child', child: { name: 'delegation:c2:repo', input: { mode: 'crash' } } } }));
    expect(crashed.message).toContain('delegation:c2:repo: crashed: boom');
  });

  it('requestUserHelp is paired by requestId with the client response', async () => {
    const task = await env.rt.startTask('help');
    const mb = env.rt.dispatcher.subscribe({ name: 'ui', filter: { taskId: 'help', types: ['user_help_needed', 'user_help_response'] } });
    const answer = task.spawn<unknown, EventOf<'user_help_response'>>({ name: 'asker', module: FIXTURE, input: { mode: 'ask_help', question: 'may I?' } });
    const asked = (await mb.next()).value;
    expect(asked?.lane).toBe('critical');
    const payload = asked?.payload as EventOf<'user_help_needed'>;
    expect(payload.question).toBe('may I?');
    expect(env.rt.respondUserHelp({ requestId: 'not-this-one', approved: false })).toBe(false);
    expect(env.rt.respondUserHelp({ requestId: payload.requestId, approved: true, answer: 'yes' })).toBe(true);
    expect(await answer).toMatchObject({ type: 'user_help_response', requestId: payload.requestId, approved: true, answer: 'yes' });
    expect((await mb.next()).value?.type).toBe('user_help_response');
    mb.close();
  });

  it('a request whose asker is cancelled, or whose worker dies, is withdrawn on the critical lane (never left open)', async () => {
    const task = await env.rt.startTask('withdrawn');
    const mb = env.rt.dispatcher.subscribe({ name: 'ui2', filter: { taskId: 'withdrawn', types: ['user_help_needed', 'user_help_withdrawn'] } });
    const ctl = new AbortController();
    const cancelled = failure(task.spawn({ name: 'asker', module: FIXTURE, input: { mode: 'ask_help', question: 'cancel me?' } }, ctl.signal));
    const first = (await mb.next()).value?.payload as EventOf<'user_help_needed'>;
    ctl.abort(new Error('user cancelled'));
    const gone = (await mb.next()).value;
    expect(gone?.lane).toBe('critical');
    expect(gone?.payload).toMatchObject({ type: 'user_help_withdrawn', requestId: first.requestId });
    expect(codeOf(await cancelled)).toBe('CANCELLED');
    const killed = failure(task.spawn({ name: 'asker2', module: FIXTURE, input: { mode: 'ask_help', question: 'kill me?' } }));
    const second = (await mb.next()).value?.payload as EventOf<'user_help_needed'>;
    await (task.supervisor.handleOf('asker2') as { worker?: Worker } | undefined)?.worker?.terminate();
    expect((await mb.next()).value?.payload).toMatchObject({ type: 'user_help_withdrawn', requestId: second.requestId, reason: 'asker2 is gone' });
    await killed;
    expect(env.rt.help.waiting()).toEqual([]);
    mb.close();
  });

  it('requestUserHelp rejects with NO_RESPONDER when the run is headless', async () => {
    env.rt.setResponder(false);
    try {
      const task = await env.rt.startTask('headless');
      const err = await failure(task.spawn({ name: 'asker', module: FIXTURE, input: { mode: 'ask_help', question: '?' } }));
      expect(err.message).toContain('no client can answer');
    } finally {
      env.rt.setResponder(true);
    }
  });
});
