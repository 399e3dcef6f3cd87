// Supervision rules on real actor workers (strategies, restart types, intensity) plus spec/backoff units.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Supervisor, type SupervisorEvent } from '../../src/runtime/supervisor.js';
import type { ChildHandle, ChildSpec, Exit } from '../../src/runtime/child.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { FIXTURE, codeOf, failure, startRuntime, until, type TestRuntime } from './helpers.js';

let env: TestRuntime;
const events: SupervisorEvent[] = [];
beforeAll(async () => {
  env = await startRuntime({ spares: 2, onSupervisorEvent: (e) => events.push(e) });
});
afterAll(async () => {
  await env.rt.shutdown(2000);
});

const slots = (...i: number[]): number[] => i.map((k) => Atomics.load(env.starts, k));
const childState = (task: string, id: string): string | undefined =>
  env.rt.snapshot().children.find((c) => c.name === 'tasks')?.children.find((t) => t.name === `task:${task}`)?.children.find((c) => c.name === id)?.state;
const ignore = (p: Promise<unknown>): void => void p.catch(() => undefined);
let barriers = 0;
/** The supervisor runs one op at a time (an exit's restart round is one): a start queued now resolves after it. */
const opsDone = (sup: Supervisor): Promise<void> => sup.startChild({ id: `barrier-${++barriers}`, restart: 'temporary', shutdownMs: 100, start: () => fakeChild() });

async function strategyRun(strategy: 'one_for_one' | 'one_for_all' | 'rest_for_one', base: number): Promise<number[]> {
  const task = await env.rt.startTask(strategy, { strategy });
  ignore(task.spawn({ name: 'a', module: FIXTURE, input: { mode: 'wait_stop', slot: base }, restart: 'permanent', shutdownMs: 2000 }));
  ignore(task.spawn({ name: 'b', module: FIXTURE, input: { mode: 'crash_once', slot: base + 1, delayMs: 150 }, restart: 'permanent', shutdownMs: 2000 }));
  ignore(task.spawn({ name: 'c', module: FIXTURE, input: { mode: 'wait_stop', slot: base + 2 }, restart: 'permanent', shutdownMs: 2000 }));
  await until(() => slots(base + 1)[0] === 2 && ['a', 'b', 'c'].every((n) => childState(strategy, n) === 'running'), 20_000, 'restart settled');
  await opsDone(task.supervisor); // the restart round is over: no sibling restart can still follow
  // every start the supervisor made has reached its worker (a start is counted once the actor runs)
  const started = ['a', 'b', 'c'].map((c) => events.filter((e) => e.type === 'child_started' && e.supervisor === `task:${strategy}` && e.child === c).length);
  await until(() => slots(base, base + 1, base + 2).every((n, i) => n === started[i]), 20_000, 'every start counted');
  const counts = slots(base, base + 1, base + 2);
  await env.rt.endTask(strategy);
  return counts;
}

describe('strategies on real workers', () => {
  it('one_for_one restarts only the crashed child', async () => {
    expect(await strategyRun('one_for_one', 0)).toEqual([1, 2, 1]);
  });
  it('one_for_all restarts every child when one crashes', async () => {
    expect(await strategyRun('one_for_all', 3)).toEqual([2, 2, 2]);
  });
  it('rest_for_one restarts the crashed child and those started after it', async () => {
    expect(await strategyRun('rest_for_one', 6)).toEqual([1, 2, 2]);
  });
});

describe('restart types on real workers', () => {
  it('transient child is restarted after a crash and its spawn resolves with the next run', async () => {
    const task = await env.rt.startTask('transient');
    const out = await task.spawn({ name: 't', module: FIXTURE, input: { mode: 'crash_once', slot: 9, after: 'return' }, restart: 'transient' });
    expect(out).toBe('recovered');
    expect(slots(9)).toEqual([2]);
  });

  it('temporary child is never restarted and its spawn rejects with ACTOR_CRASHED', async () => {
    const task = await env.rt.startTask('temporary');
    const err = await failure(task.spawn({ name: 't', module: FIXTURE, input: { mode: 'crash_once', slot: 10 }, restart: 'temporary' }));
    expect(codeOf(err)).toBe('ACTOR_CRASHED');
    expect((err as Error).message).toContain('crash on first start');
    await opsDone(task.supervisor); // the exit's handling is over: the decision not to restart is on record
    const mine = events.filter((e) => e.supervisor === 'task:temporary' && 'child' in e && e.child === 't');
    expect(mine.map((e) => (e.type === 'child_exited' ? `exited restarting=${e.restarting}` : e.type))).toEqual(['child_started', 'exited restarting=false']);
    expect(slots(10)).toEqual([1]);
    expect(childState('temporary', 't')).toBeUndefined();
  });

  it('permanent child is restarted even after a normal exit', async () => {
    const task = await env.rt.startTask('permanent');
    ignore(task.spawn({ name: 'p', module: FIXTURE, input: { mode: 'exit_normal_until', slot: 11, times: 3 }, restart: 'permanent' }));
    await until(() => slots(11)[0] === 3 && childState('permanent', 'p') === 'running', 20_000, 'third start');
    expect(slots(11)).toEqual([3]);
    await env.rt.endTask('permanent');
  });
});

describe('intensity', () => {
  it('intensity escalation: more restarts than allowed in the period ends the task supervisor', async () => {
    const { rt } = env;
    const task = await rt.startTask('escalate');
    // Override: OTP default intensity 1 in 5000 ms for this task's supervisor.
    const sup = await Supervisor.start({ name: 'inner', intensity: 1, periodMs: 5000, backoff: { initialMs: 0, maxMs: 0, jitter: 0 }, onEvent: (e) => events.push(e) });
    await task.supervisor.startChild({ id: 'inner', restart: 'temporary', shutdownMs: 1000, start: () => Promise.resolve(sup) });
    await sup.startChild({ id: 'crasher', restart: 'permanent', shutdownMs: 1000, start: () => fakeChild({ crashAfterMs: 20 }) });
    const exit = await sup.exited;
    expect(exit.normal).toBe(false);
    expect(exit.reason).toContain('reached_max_restart_intensity');
    expect(events.some((e) => e.type === 'escalated' && e.supervisor === 'inner')).toBe(true);
    await rt.endTask('escalate');
  });

  it('a crash loop of a real actor escalates and the spawn rejects with ACTOR_CRASHED', async () => {
    const { rt } = env;
    await rt.startTask('loop');
    const err = await failure(rt.spawn('loop', { name: 'c', module: FIXTURE, input: { mode: 'crash' }, restart: 'permanent' }));
    expect(codeOf(err)).toBe('ACTOR_CRASHED');
    expect(events.some((e) => e.type === 'escalated' && e.supervisor === 'task:loop')).toBe(true);
    await until(() => rt.task('loop') === undefined, 20_000, 'task forgotten');
    expect(rt.task('loop')).toBeUndefined();
  });
});

// ---- pure units with fake children (no workers) ----

function fakeChild(o: { crashAfterMs?: number; log?: string[]; id?: string } = {}): Promise<ChildHandle> {
  let resolve!: (e: Exit) => void;
  const exited = new Promise<Exit>((r) => (resolve = r));
  if (o.crashAfterMs !== undefined) setTimeout(() => resolve({ normal: false, reason: 'crashed: fake' }), o.crashAfterMs);
  o.log?.push(`start ${o.id}`);
  return Promise.resolve({
    exited,
    stop: () => {
      o.log?.push(`stop ${o.id}`);
      resolve({ normal: true, reason: 'shutdown' });
      return Promise.resolve();
    },
  });
}

describe('terminateChild', () => {
  it('a child stopped while its parent\'s stop is queued first is stopped at once and its waiters get its exit', async () => {
    // the parent's stop waits for what its child returns (a cancelled Director waits for its delegation's usage):
    // a child stop queued behind the parent's would hold both
    const sup = await Supervisor.start({ name: 'nested-stop' });
    let childExit!: (e: Exit) => void;
    const childExited = new Promise<Exit>((r) => (childExit = r));
    const child: ChildHandle = { exited: childExited, stop: () => (childExit({ normal: true, reason: 'shutdown', value: 'child usage' }), Promise.resolve()) };
    let parentExit!: (e: Exit) => void;
    const parentExited = new Promise<Exit>((r) => (parentExit = r));
    const childSeen: Exit[] = [];
    let stopping: Promise<void> | undefined;
    const parent: ChildHandle = {
      exited: parentExited,
      // idempotent, like every real handle: asked again, it waits for the same exit
      stop: () =>
        (stopping ??= (async () => {
          void sup.terminateChild('child', 'cancelled'); // the parent cancels its child while it stops
          childSeen.push(await sup.awaitChild('child'));
          parentExit({ normal: true, reason: 'shutdown' });
        })()),
    };
    await sup.startChild({ id: 'parent', restart: 'temporary', shutdownMs: 60_000, start: () => Promise.resolve(parent) });
    await sup.startChild({ id: 'child', restart: 'temporary', shutdownMs: 60_000, start: () => Promise.resolve(child) });
    await sup.terminateChild('parent', 'cancelled');
    expect(childSeen).toEqual([{ normal: true, reason: 'shutdown', value: 'child usage' }]);
    await sup.stop();
  });
});

describe('supervision as data', () => {
  it('invalid child specs are rejected with a message naming the field', async () => {
    const bad = { id: 'x', restart: 'sometimes', shutdownMs: -1, start: () => fakeChild() } as unknown as ChildSpec;
    await expect(Supervisor.start({ name: 's' }, [bad])).rejects.toThrow(/restart must be one of permanent \| transient \| temporary.*shutdownMs must be >= 0/);
    await expect(Supervisor.start({ name: 's', strategy: 'all_for_none' as never })).rejects.toThrow(/strategy must be one of/);
  });

  it('children start in order and stop in reverse', async () => {
    const log: string[] = [];
    const spec = (id: string): ChildSpec => ({ id, restart: 'permanent', shutdownMs: 100, start: () => fakeChild({ log, id }) });
    const sup = await Supervisor.start({ name: 's' }, [spec('a'), spec('b'), spec('c')]);
    await sup.stop();
    expect(log).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('restart backoff grows exponentially with jitter on the injected clock', async () => {
    const clock = new ManualClock();
    let starts = 0;
    const exits: ((e: Exit) => void)[] = [];
    const start = (): Promise<ChildHandle> => {
      starts++;
      const exited = new Promise<Exit>((r) => exits.push(r));
      return Promise.resolve({ exited, stop: () => Promise.resolve(exits.at(-1)?.({ normal: true, reason: 'shutdown' })) });
    };
    const sup = await Supervisor.start({ name: 'b', clock, random: () => 0.5, intensity: 10, periodMs: 1e9, backoff: { initialMs: 100, maxMs: 1000, jitter: 0.2 } }, [
      { id: 'x', restart: 'permanent', shutdownMs: 10, start },
    ]);
    const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
    exits[0]?.({ normal: false, reason: 'crash' });
    await tick();
    clock.advance(109); // first delay: 100 * (1 + 0.2 * 0.5) = 110
    await tick();
    expect(starts).toBe(1);
    clock.advance(1);
    await tick();
    expect(starts).toBe(2);
    exits[1]?.({ normal: false, reason: 'crash' });
    await tick();
    clock.advance(219); // second delay: 200 * 1.1 = 220
    await tick();
    expect(starts).toBe(2);
    clock.advance(1);
    await tick();
    expect(starts).toBe(3);
    await sup.stop();
  });
});
