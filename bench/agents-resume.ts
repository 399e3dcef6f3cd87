// Figure `resume_first_request_50_steps` of suite `agents`: the real CLI is SIGKILLed while its Coding delegation is
// 50 tool steps in; then `yagent -p … --continue` runs in a new process. Time from that process's spawn to its first
// model request (the delegation continued from its rollout, none of the 50 reads re-run) against a fresh `yagent -p`
// (spawn → the Director's first request); same binary, config and fake model, samples alternating.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { figure, stats, type Figure } from './lib.js';
import { prepare, ROOT, ScriptedModel } from './side-by-side.js';
import type { FakeReply } from '../src/actors/llm/fake/script.js';

const STEPS = 50;
const RUNS = 5;
const BIN = join(ROOT, 'bin', 'yagent.js');
const say = (text: string): FakeReply => ({ text, finishReason: 'stop' });
const tool = (id: string, name: string, args: unknown): FakeReply => ({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });

interface Sandbox {
  dir: string;
  env: NodeJS.ProcessEnv;
  config: string;
  ws: string;
}

function sandbox(model: ScriptedModel): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'bench-resume-'));
  const p = prepare(dir, model);
  return { dir, config: p.config, ws: p.ws, env: { PATH: process.env.PATH, HOME: dir, YAGENT_HOME: p.home, NO_COLOR: '1' } };
}

function cli(sb: Sandbox, args: string[]): ReturnType<typeof spawn> {
  return spawn(process.execPath, [BIN, '-c', sb.config, ...args, '-y'], { env: sb.env, cwd: sb.ws, stdio: ['ignore', 'ignore', 'pipe'] });
}

async function exited(child: ReturnType<typeof spawn>, what: string): Promise<void> {
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`bench resume: ${what} exited ${code}: ${err.slice(-1500)}`);
}

/** A session whose Coding delegation has read 50 files and waits on its 51st model call when the CLI is killed. */
async function killedSession(model: ScriptedModel, sb: Sandbox, id: string): Promise<void> {
  const fake = model.fake;
  fake.script('director', tool(`d-${id}`, 'delegate_coding', { task: 'read everything', context_refs: [] }));
  for (let i = 0; i < STEPS; i++) fake.script('coding', tool(`${id}-r${i}`, 'read_file', { path: `f${i % 4}.txt` }));
  fake.script('coding', { text: 'x', fault: { kind: 'stall', afterEvents: 1 } });
  const before = fake.requestsFor('coding').length;
  const child = cli(sb, ['-p', 'read everything']);
  const gone = once(child, 'close');
  while (fake.requestsFor('coding').length < before + STEPS + 1) {
    if (child.exitCode !== null) throw new Error(`bench resume: the run ended (${child.exitCode}) before its delegation was 50 steps in`);
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill('SIGKILL');
  await gone;
}

/** ms from the spawn of `args` to the first model request of `agent` it causes; the run then finishes. */
async function firstRequest(model: ScriptedModel, sb: Sandbox, agent: string, args: string[], replies: Record<string, FakeReply[]>): Promise<number> {
  let first = Number.NaN;
  const [head, ...rest] = replies[agent] ?? [];
  model.fake.script(agent, () => ((first = performance.now()), head ?? say('done')), ...rest);
  for (const [other, steps] of Object.entries(replies)) if (other !== agent) model.fake.script(other, ...steps);
  const t0 = performance.now();
  await exited(cli(sb, args), args.join(' '));
  if (Number.isNaN(first)) throw new Error(`bench resume: ${args.join(' ')} sent no ${agent} request`);
  return first - t0;
}

export async function resumeLatencyFigure(): Promise<Figure> {
  const resumed: number[] = [];
  const fresh: number[] = [];
  for (let k = 0; k <= RUNS; k++) {
    // a model of its own per sample: every run's script starts at step 0, spare replies never leak into the next
    const model = await ScriptedModel.start();
    const sb = sandbox(model);
    const other = sandbox(model); // the fresh start's own workspace: --continue must find the killed session
    try {
      const id = `resume-bench-${k}`;
      await killedSession(model, sb, id);
      const reads = model.fake.requestsFor('coding').length;
      const done = [say('done')]; // a direct answer is one call (no reminder: it claims no work)
      const resume = (): Promise<number> =>
        firstRequest(model, sb, 'coding', ['-p', 'continue', '--continue'], { coding: [tool(`${id}-x`, 'agent_exit', { conclusion: 'read', status: 'ok' })], director: done });
      const start = (): Promise<number> => firstRequest(model, other, 'director', ['-p', 'hello'], { director: done });
      let r: number;
      let f: number;
      if (k % 2 === 0) {
        r = await resume();
        f = await start();
      } else {
        f = await start();
        r = await resume();
      }
      // the continued delegation sent one request (its exit): none of the 50 recorded reads ran again
      if (model.fake.requestsFor('coding').length !== reads + 1) throw new Error('bench resume: the continued delegation re-ran recorded steps');
      if (k === 0) continue; // warm-up
      resumed.push(r);
      fresh.push(f);
    } finally {
      await model.close();
      for (const d of [sb.dir, other.dir]) rmSync(d, { recursive: true, force: true });
    }
  }
  const baseline = stats(fresh).median;
  return figure(
    'resume_first_request_50_steps',
    'ms',
    resumed,
    '≤ 2× a fresh start (spawn → first model request)',
    (v) => v <= 2 * baseline,
    { label: 'fresh `yagent -p` in a workspace like it: spawn → the Director\'s first request (samples alternate)', value: baseline },
  );
}
