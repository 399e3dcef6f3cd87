// Dispatcher rules: critical never dropped and in order, exact drop accounting, seq per task, replay, pause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher, DEFAULT_MAILBOX_CAPACITY } from '../../src/runtime/dispatcher.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { Envelope, EventOf } from '../../src/runtime/protocol/index.js';
import { FIXTURE, startRuntime, until, type TestRuntime } from './helpers.js';

let env: TestRuntime;
beforeAll(async () => {
  env = await startRuntime({ spares: 2, creditWindow: 256 });
});
afterAll(async () => {
  await env.rt.shutdown(2000);
});

const chunk = (i: number): EventOf<'ai_chunk'> => ({ type: 'ai_chunk', agent: 'a', text: String(i) });
const src = (taskId: string, delegationId: string | null = null) => ({ name: 'actor', taskId, delegationId });

describe('dispatcher on real workers', () => {
  it('under a flood that saturates the normal lane every critical event is delivered in order', async () => {
    const { rt } = env;
    const task = await rt.startTask('flood');
    const slow = rt.dispatcher.subscribe({ name: 'slow-ui', filter: { taskId: 'flood' }, capacity: 16 });
    const got: Envelope[] = [];
    const reading = (async () => {
      for await (const env of slow) {
        got.push(env);
        if (env.type === 'task_end') return;
        await new Promise((r) => setTimeout(r, 1)); // a slow consumer
      }
    })();
    const out = await task.spawn<unknown, { normal: number; critical: number }>({ name: 'flooder', module: FIXTURE, input: { mode: 'flood', normal: 5000, criticalEvery: 50, rounds: 4 } });
    rt.publish({ name: 'test', taskId: 'flood' }, { type: 'task_end', stopReason: 'plain_text' });
    await reading;
    const critical = got.filter((e) => e.type === 'delegation_start').map((e) => Number((e.payload as EventOf<'delegation_start'>).callId));
    expect(out.critical).toBe(400);
    expect(critical).toEqual([...Array(out.critical).keys()]);
    expect(slow.stats().dropped + (rt.dispatcher.dropped().bySource.flood?.ai_chunk ?? 0)).toBeGreaterThan(0);
  });

  it('sent = delivered + dropped exactly, per consumer and at the source', async () => {
    const { rt } = env;
    const task = await rt.startTask('acct');
    const fast = rt.dispatcher.subscribe({ name: 'fast', filter: { taskId: 'acct', types: ['ai_chunk'] }, capacity: 100_000 });
    const tiny = rt.dispatcher.subscribe({ name: 'tiny', filter: { taskId: 'acct', types: ['ai_chunk'] }, capacity: 8 });
    const out = await task.spawn<unknown, { normal: number }>({ name: 'flooder', module: FIXTURE, input: { mode: 'flood', normal: 3000, criticalEvery: 1000, rounds: 3 } });
    const drain = (mb: typeof fast): number => {
      let n = 0;
      while (mb.poll()) n++;
      return n;
    };
    const atSource = rt.dispatcher.dropped().bySource.acct?.ai_chunk ?? 0;
    const fastDelivered = drain(fast);
    const tinyDelivered = drain(tiny);
    expect(atSource).toBeGreaterThan(0); // the credit window really limited the sender
    expect(fast.stats().dropped).toBe(0);
    expect(fastDelivered + atSource).toBe(out.normal);
    expect(tinyDelivered + tiny.stats().dropped + atSource).toBe(out.normal);
    expect(tiny.stats().dropped).toBeGreaterThan(0);
    expect(rt.dispatcher.dropped().byConsumer.tiny?.ai_chunk).toBe(tiny.stats().dropped);
    const report = rt.dispatcher.warnDropped('acct');
    expect(report?.dropped['tiny/ai_chunk']).toBe(tiny.stats().dropped);
    expect(report?.dropped['source/ai_chunk']).toBe(atSource);
  });

  it('seq is strictly increasing per task and delegationId is the one bound at spawn', async () => {
    const { rt } = env;
    const a = await rt.startTask('seq-a');
    await rt.startTask('seq-b');
    const all = rt.dispatcher.subscribe({ name: 'all', filter: {}, capacity: 100_000 });
    await Promise.all([
      a.spawn({ name: 'p1', module: FIXTURE, input: { mode: 'flood', normal: 200, criticalEvery: 7 }, delegationId: 'call_1' }),
      a.spawn({ name: 'p2', module: FIXTURE, input: { mode: 'flood', normal: 200, criticalEvery: 9 }, delegationId: 'call_2' }),
      rt.spawn('seq-b', { name: 'p3', module: FIXTURE, input: { mode: 'flood', normal: 200, criticalEvery: 5 } }),
    ]);
    const seen: Envelope[] = [];
    for (let e = all.poll(); e; e = all.poll()) seen.push(e);
    for (const t of ['seq-a', 'seq-b']) {
      const seqs = seen.filter((e) => e.taskId === t).map((e) => e.seq);
      expect(seqs.length).toBeGreaterThan(200);
      expect(seqs.every((s, i) => i === 0 || s > (seqs[i - 1] ?? 0))).toBe(true);
    }
    expect(new Set(seen.filter((e) => e.source === 'p1').map((e) => e.delegationId))).toEqual(new Set(['call_1']));
    expect(new Set(seen.filter((e) => e.source === 'p3').map((e) => e.delegationId))).toEqual(new Set([null]));
    all.close();
  });

  it('the pause gate blocks a running actor at its step boundary and resumes without cancelling', async () => {
    const { rt } = env;
    const task = await rt.startTask('pause');
    const mb = rt.dispatcher.subscribe({ name: 'steps', filter: { taskId: 'pause', types: ['sub_agent_activity', 'task_paused', 'task_resumed'] } });
    const result = task.spawn<unknown, { done: number; aborted: boolean }>({ name: 'stepper', module: FIXTURE, input: { mode: 'steps', steps: 6, stepMs: 25 } });
    const text = async (): Promise<string> => {
      const e = (await mb.next()).value?.payload;
      return e?.type === 'sub_agent_activity' ? e.text : String(e?.type);
    };
    expect(await text()).toBe('step 0');
    rt.pauseTask('pause');
    // steps already past their gate when the pause landed still arrive; then the stepper reports where it is held
    const untilHeld: string[] = [];
    for (let t = await text(); ; t = await text()) {
      untilHeld.push(t);
      if (t === 'step 5' || (t !== 'task_paused' && !t.startsWith('step '))) break; // the last step: the pause never landed
    }
    const hold = untilHeld.at(-1) ?? '';
    expect(hold).toMatch(/^held at step [1-5]$/); // the gate held the actor across a turn at its step boundary
    expect(untilHeld).toContain('task_paused');
    rt.resumeTask('pause');
    expect(await result).toEqual({ done: 6, aborted: false });
    const afterHold: string[] = [];
    for (let e = mb.poll(); e; e = mb.poll()) afterHold.push(e.payload.type === 'sub_agent_activity' ? e.payload.text : e.payload.type);
    const k = Number(hold.split(' ').at(-1));
    // nothing moved while paused: the held step ran only after the resume, and every step ran once, in order
    expect(afterHold).toEqual(['task_resumed', ...[0, 1, 2, 3, 4, 5].slice(k).map((i) => `step ${i}`)]);
    expect(untilHeld.filter((t) => t.startsWith('step '))).toEqual([1, 2, 3, 4, 5].slice(0, k - 1).map((i) => `step ${i}`));
  });
});

describe('the flood fixture (the saturation bench)', () => {
  it('a flood started paused says it is held and floods only once resumed', async () => {
    const { rt } = env;
    const task = await rt.startTask('held-flood');
    rt.pauseTask('held-flood');
    const mb = rt.dispatcher.subscribe({ name: 'held', capacity: 10_000, filter: { taskId: 'held-flood', types: ['sub_agent_activity', 'ai_chunk', 'delegation_start', 'task_resumed'] } });
    const out = task.spawn<unknown, { normal: number; critical: number }>({ name: 'flooder', module: FIXTURE, input: { mode: 'flood', normal: 20, criticalEvery: 10 } });
    expect((await mb.next()).value?.payload).toEqual({ type: 'sub_agent_activity', agent: 'fixture', text: 'flood held' });
    rt.resumeTask('held-flood');
    expect(await out).toEqual({ normal: 20, critical: 2 });
    const rest: string[] = [];
    for (let e = mb.poll(); e; e = mb.poll()) rest.push(e.payload.type);
    // the flood's events all came after the resume, none lost
    expect(rest[0]).toBe('task_resumed');
    expect(rest.filter((t) => t === 'ai_chunk')).toHaveLength(20);
    expect(rest.filter((t) => t === 'delegation_start')).toHaveLength(2);
    await rt.endTask('held-flood');
  });
});

describe('pausing one actor', () => {
  it('pauseActors reaches the child and its parent sees it (ctx.childPause: the parent\'s timers for it freeze)', async () => {
    const { rt } = env;
    const task = await rt.startTask('pause-one');
    const mb = rt.dispatcher.subscribe({ name: 'child-pause', filter: { taskId: 'pause-one', types: ['sub_agent_activity'] } });
    const result = task.spawn({ name: 'parent', module: FIXTURE, input: { mode: 'spawn_child', watchChildPause: true, child: { name: 'delegation:c1:kid', input: { mode: 'wait_stop' } } } }).catch((e: unknown) => e);
    await until(() => rt.liveActors().includes('delegation:c1:kid'), 20_000, 'the child started');
    const seen = async (): Promise<string> => {
      const e = (await mb.next()).value?.payload;
      return e?.type === 'sub_agent_activity' ? e.text : String(e?.type);
    };
    expect(rt.pauseActors('pause-one', 'c1', true)).toEqual(['delegation:c1:kid']);
    expect(await seen()).toBe('child delegation:c1:kid paused');
    expect(rt.pauseActors('pause-one', 'kid', false)).toEqual(['delegation:c1:kid']);
    expect(await seen()).toBe('child delegation:c1:kid resumed');
    await rt.endTask('pause-one');
    await result;
    mb.close();
  });
});

describe('dispatcher units', () => {
  it('the default capacity is the one defined constant', () => {
    const d = new Dispatcher({ onWarn: () => undefined });
    expect(d.subscribe({ name: 'x' }).capacity).toBe(DEFAULT_MAILBOX_CAPACITY);
  });

  it('critical envelopes evict the oldest normal one instead of being dropped', () => {
    const d = new Dispatcher({ onWarn: () => undefined });
    const mb = d.subscribe({ name: 'm', capacity: 2 });
    d.publish(src('t'), chunk(1));
    d.publish(src('t'), chunk(2));
    d.publish(src('t'), { type: 'task_paused' });
    d.publish(src('t'), chunk(3));
    const got = [mb.poll(), mb.poll(), mb.poll()].map((e) => e?.type);
    expect(got).toEqual(['ai_chunk', 'task_paused', undefined]);
    expect(mb.stats()).toMatchObject({ accepted: 4, delivered: 2, dropped: 2 });
  });

  it('the drop warning is rate-limited on the injected clock', () => {
    const clock = new ManualClock(0);
    const warnings: string[] = [];
    const d = new Dispatcher({ clock, warnIntervalMs: 1000, onWarn: (m) => warnings.push(m) });
    d.subscribe({ name: 'm', capacity: 1 });
    for (let i = 0; i < 50; i++) d.publish(src('t'), chunk(i));
    expect(warnings).toHaveLength(1);
    clock.advance(1000);
    d.publish(src('t'), chunk(99));
    expect(warnings).toHaveLength(2);
  });

  it('a late consumer replays a task from a seq and then continues live', () => {
    const d = new Dispatcher({ onWarn: () => undefined, replayPerTask: 100 });
    for (let i = 0; i < 10; i++) d.publish(src('t'), chunk(i));
    d.publish(src('other'), chunk(0));
    const late = d.subscribe({ name: 'sse', filter: { taskId: 't' }, fromSeq: 7 });
    d.publish(src('t'), chunk(10));
    const seqs: number[] = [];
    for (let e = late.poll(); e; e = late.poll()) seqs.push(e.seq);
    expect(seqs).toEqual([8, 9, 10, 11]);
  });

  it('the replay keeps exactly the last replayPerTask envelopes of a task, oldest first, across wrap-arounds', () => {
    const d = new Dispatcher({ onWarn: () => undefined, replayPerTask: 5 });
    const seqs = (from: number): number[] => d.replay('t', from).map((e) => e.seq);
    for (let i = 0; i < 3; i++) d.publish(src('t'), chunk(i));
    expect(seqs(0)).toEqual([1, 2, 3]);
    for (let i = 3; i < 13; i++) {
      d.publish(src('t'), chunk(i));
      d.publish(src('other'), chunk(i));
    }
    expect(seqs(0)).toEqual([9, 10, 11, 12, 13]);
    expect(seqs(10)).toEqual([11, 12, 13]);
    expect(d.replay('t', 0).map((e) => e.payload)).toEqual([8, 9, 10, 11, 12].map(chunk));
    const late = d.subscribe({ name: 'sse', filter: { taskId: 't' }, fromSeq: 11 });
    d.publish(src('t'), chunk(13));
    const got: number[] = [];
    for (let e = late.poll(); e; e = late.poll()) got.push(e.seq);
    expect(got).toEqual([12, 13, 14]);
    d.forget('t');
    expect(seqs(0)).toEqual([]);
    d.publish(src('t'), chunk(14)); // a forgotten task's seq keeps counting and its replay starts over
    expect(seqs(0)).toEqual([15]);
    expect(d.lastSeq('t')).toBe(15);
  });

  it('drops of a task and consumer are counted per task, across tasks, and afresh after the task is forgotten', () => {
    const d = new Dispatcher({ onWarn: () => undefined });
    const mb = d.subscribe({ name: 'm', capacity: 1 });
    for (let i = 0; i < 4; i++) d.publish(src('t'), chunk(i)); // 3 dropped
    for (let i = 0; i < 2; i++) d.publish(src('u'), chunk(i)); // 2 dropped
    d.publish(src('t'), chunk(9)); // 1 more of t's
    expect([d.scopeStats('t').drops, d.scopeStats('u').drops]).toEqual([4, 2]);
    expect(d.dropped().byConsumer).toEqual({ m: { ai_chunk: 6 } });
    d.forget('t');
    expect(d.scopeStats('t').drops).toBe(0);
    d.publish(src('t'), chunk(10));
    expect(d.scopeStats('t').drops).toBe(1); // counted in the task's new record, not the forgotten one
    expect(d.dropped()).toMatchObject({ total: 7, byConsumer: { m: { ai_chunk: 7 } } });
    expect(mb.stats().dropped).toBe(7);
  });

  it('filters select by task, delegation and type', () => {
    const d = new Dispatcher({ onWarn: () => undefined });
    const mb = d.subscribe({ name: 'f', filter: { taskId: 't', delegationId: 'call_1', types: ['ai_chunk'] } });
    d.publish(src('t', 'call_1'), chunk(1));
    d.publish(src('t', 'call_2'), chunk(2));
    d.publish(src('u', 'call_1'), chunk(3));
    d.publish(src('t', 'call_1'), { type: 'task_paused' });
    expect([mb.poll()?.payload, mb.poll()]).toEqual([chunk(1), undefined]);
  });
});
