// Figure `resume_first_request_50_steps` of suite `agents`: a session interrupted while its Coding delegation is
// 50 tool steps in; time from `runTask --resume` to the first model request (the delegation continued from its
// rollout) against a fresh start (runTask → the Director's first request), samples alternating in one run.
import { performance } from 'node:perf_hooks';
import { figure, stats, type Figure } from './lib.js';
import type { Runtime } from '../src/runtime/runtime.js';
import type { FakeProvider } from '../src/actors/llm/fake/server.js';
import type { FakeReply } from '../src/actors/llm/fake/script.js';
import { runTask, type RunTaskOptions } from '../src/actors/agents/run-task.js';

const STEPS = 50;
const RUNS = 5;
const say = (text: string): FakeReply => ({ text });
const tool = (id: string, name: string, args: unknown): FakeReply => ({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] });

async function interruptedSession(rt: Runtime, fake: FakeProvider, base: Omit<RunTaskOptions, 'prompt'>, id: string): Promise<void> {
  fake.script('director', tool(`d-${id}`, 'delegate_coding', { task: 'read everything', context_refs: [] }));
  for (let i = 0; i < STEPS; i++) fake.script('coding', tool(`${id}-r${i}`, 'read_file', { path: `f${i % 4}.txt` }));
  fake.script('coding', { text: 'x', fault: { kind: 'stall', afterEvents: 1 } });
  const before = fake.requestsFor('coding').length;
  const ctl = new AbortController();
  const running = runTask(rt, { ...base, prompt: 'read everything', taskId: id, signal: ctl.signal }).catch(() => null);
  while (fake.requestsFor('coding').length < before + STEPS + 1) await new Promise((r) => setTimeout(r, 5));
  ctl.abort(new Error('interrupted by the benchmark'));
  await running;
  await rt.endTask(id); // the task's workers stop the way a quit stops them (stop + checkpoint, then gone)
}

/** ms from the call to the first model request it causes. */
async function firstRequest(rt: Runtime, fake: FakeProvider, agent: string, opts: RunTaskOptions, rest: FakeReply[]): Promise<number> {
  let first = 0;
  fake.script(agent, () => ((first = performance.now()), rest[0] ?? say('done')));
  const t0 = performance.now();
  await runTask(rt, opts);
  await rt.endTask(opts.taskId ?? '');
  return first - t0;
}

export async function resumeLatencyFigure(rt: Runtime, fake: FakeProvider, base: Omit<RunTaskOptions, 'prompt'>): Promise<Figure> {
  const resumed: number[] = [];
  const fresh: number[] = [];
  for (let k = 0; k <= RUNS; k++) {
    const id = `resume-bench-${k}`;
    await interruptedSession(rt, fake, base, id);
    fake.script('director', say('done'));
    const r = await firstRequest(rt, fake, 'coding', { ...base, prompt: 'continue', taskId: `${id}-2`, session: { resume: id } }, [tool(`${id}-x`, 'agent_exit', { conclusion: 'read', status: 'ok' })]);
    fake.script('director', say('done'), say('done'), say('done'));
    const f = await firstRequest(rt, fake, 'director', { ...base, prompt: 'hello', taskId: `${id}-fresh` }, [say('done')]);
    if (k === 0) continue; // warm-up
    resumed.push(r);
    fresh.push(f);
  }
  const baseline = stats(fresh).median;
  return figure(
    'resume_first_request_50_steps',
    'ms',
    resumed,
    '≤ 2× a fresh start (runTask → first model request)',
    (v) => v <= 2 * baseline,
    { label: 'fresh start: runTask → the Director\'s first request, same runtime', value: baseline },
  );
}
