// Test fixture actor (compiled to dist/ so real workers can load it): behaviour chosen by input.mode.
import { readFileSync } from 'node:fs';
import { resourceLimits } from 'node:worker_threads';
import { defineActor, type ActorContext } from '../actor.js';
import { kernelThreadId } from '../thread-priority.js';

export type FixtureInput =
  | { mode: 'echo'; value: unknown; delayMs?: number }
  | { mode: 'crash'; message?: string; delayMs?: number }
  | { mode: 'crash_once'; slot: number; delayMs?: number; after?: 'wait' | 'return' }
  | { mode: 'exit_normal_until'; slot: number; times: number }
  | { mode: 'exit_code'; code: number }
  | { mode: 'uncaught' }
  | { mode: 'wait_stop'; slot?: number }
  | { mode: 'spin'; slot?: number }
  | { mode: 'oom' }
  | { mode: 'flood'; normal: number; criticalEvery: number; rounds?: number }
  | { mode: 'steps'; steps: number; stepMs: number }
  | { mode: 'spawn_child'; child: { name: string; input: FixtureInput; restart?: 'permanent' | 'transient' | 'temporary' }; watchChildPause?: boolean; announce?: string[] }
  | { mode: 'ask_help'; question: string; announce?: string[] }
  | { mode: 'call_service'; service: string; method: string; args: unknown[] }
  | { mode: 'limits' }
  | { mode: 'thread' };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Counts starts per slot in the shared `starts` buffer so tests see restarts across incarnations. */
function countStart(ctx: ActorContext, slot: number | undefined): number {
  const buf = ctx.shared.starts;
  if (slot === undefined || !buf) return 0;
  return Atomics.add(new Int32Array(buf), slot, 1);
}

function untilStopped(ctx: ActorContext): Promise<string> {
  return new Promise((r) => ctx.signal.addEventListener('abort', () => r('stopped'), { once: true }));
}

/** Publishes `child <name> paused` / `resumed` as this actor sees its child's own pause (ctx.childPause). */
async function watchChildPause(ctx: ActorContext, name: string): Promise<void> {
  const gate = ctx.childPause(name);
  while (!ctx.signal.aborted) {
    while (!gate.paused && !ctx.signal.aborted) await sleep(5);
    if (ctx.signal.aborted) return;
    ctx.publish({ type: 'sub_agent_activity', agent: 'fixture', text: `child ${name} paused` });
    await gate.wait(ctx.signal).catch(() => undefined); // rejects only on abort: the fixture then just ends
    if (!ctx.signal.aborted) ctx.publish({ type: 'sub_agent_activity', agent: 'fixture', text: `child ${name} resumed` });
  }
}

/** At a paused step boundary: says `held at step i` once the gate has held across a turn (a gate that let go says so). */
async function reportHold(ctx: ActorContext, i: number): Promise<void> {
  const released = ctx.pause.wait(ctx.signal).then(() => false, () => false);
  const held = await Promise.race([released, new Promise<boolean>((r) => setImmediate(() => r(true)))]);
  ctx.publish({ type: 'sub_agent_activity', agent: 'fixture', text: held ? `held at step ${i}` : `gate let go at step ${i}` });
}

export default defineActor<FixtureInput, unknown>({
  kind: 'fixture',
  async run(ctx, input) {
    switch (input.mode) {
      case 'echo':
        if (input.delayMs) await sleep(input.delayMs);
        return { value: input.value, name: ctx.name, taskId: ctx.taskId, delegationId: ctx.delegationId };
      case 'crash':
        if (input.delayMs) await sleep(input.delayMs);
        throw Object.assign(new Error(input.message ?? 'boom'), { code: 'FIXTURE_BOOM' });
      case 'crash_once': {
        const before = countStart(ctx, input.slot);
        if (before === 0) {
          await sleep(input.delayMs ?? 0);
          throw new Error('crash on first start');
        }
        return input.after === 'return' ? 'recovered' : untilStopped(ctx);
      }
      case 'exit_normal_until': {
        const before = countStart(ctx, input.slot);
        if (before + 1 < input.times) return 'finished';
        return untilStopped(ctx);
      }
      case 'exit_code':
        process.exit(input.code);
        return null;
      case 'uncaught':
        setTimeout(() => {
          throw new Error('uncaught in worker');
        }, 5);
        return untilStopped(ctx);
      case 'wait_stop':
        countStart(ctx, input.slot);
        return untilStopped(ctx);
      case 'spin':
        await sleep(5);
        countStart(ctx, input.slot); // counted once nothing but the loop is left: the worker can no longer answer
        for (;;) {
          // Spins forever: only terminate() can end this worker.
        }
      case 'oom': {
        const hog: unknown[] = [];
        for (;;) hog.push(new Array(100_000).fill({ x: Math.random() }));
      }
      case 'flood': {
        let critical = 0;
        let sent = 0;
        // started paused: says so and floods once resumed (the saturation bench lets the spare refill finish first)
        if (ctx.pause.paused) {
          ctx.publish({ type: 'sub_agent_activity', agent: 'fixture', text: 'flood held' });
          await ctx.pause.wait(ctx.signal);
        }
        for (let r = 0; r < (input.rounds ?? 1); r++) {
          for (let i = 0; i < input.normal; i++) {
            ctx.publish({ type: 'ai_chunk', agent: 'fixture', text: `c${sent++}` });
            if (i % input.criticalEvery === 0) {
              ctx.publish({ type: 'delegation_start', agent: 'fixture', callId: String(critical++), child: 'x', task: String(performance.timeOrigin + performance.now()) });
            }
          }
          await sleep(1);
        }
        return { normal: sent, critical };
      }
      case 'steps': {
        let done = 0;
        for (let i = 0; i < input.steps; i++) {
          if (ctx.pause.paused) await reportHold(ctx, i);
          await ctx.pause.wait(ctx.signal);
          ctx.publish({ type: 'sub_agent_activity', agent: 'fixture', text: `step ${i}` });
          done++;
          await sleep(input.stepMs);
        }
        return { done, aborted: ctx.signal.aborted };
      }
      case 'spawn_child': {
        for (const text of input.announce ?? []) ctx.publish({ type: 'sub_agent_activity', agent: 'fixture', text });
        const child = ctx.spawn({ name: input.child.name, module: 'src/runtime/testing/fixture-actor.js', input: input.child.input, restart: input.child.restart, delegationId: input.child.name });
        if (input.watchChildPause === true) void watchChildPause(ctx, input.child.name);
        return child;
      }
      case 'ask_help':
        for (const text of input.announce ?? []) ctx.publish({ type: 'sub_agent_activity', agent: 'fixture', text });
        return ctx.requestUserHelp({ agent: 'fixture', kind: 'question', question: input.question });
      case 'call_service': {
        const svc = ctx.connect<Record<string, (...a: unknown[]) => unknown>>(input.service);
        const fn = svc[input.method];
        if (!fn) throw new Error('no method');
        return fn(...input.args);
      }
      case 'thread': {
        // read before the actor ends: its worker thread is gone right after
        const tid = kernelThreadId();
        return { tid: tid ?? null, stat: tid === undefined ? null : readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8') };
      }
      case 'limits':
        return { ...resourceLimits };
    }
  },
});
