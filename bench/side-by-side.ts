// `yagent -p` and the reference agent loop (bench/reference-agent.mjs) on one loopback fake model in this
// process: the same 20-step script (20 small file reads, then a final answer), runs alternating A/B.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FakeProvider } from '../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../src/actors/llm/fake/script.js';
import { setKeyInSection } from '../src/runtime/config/persist.js';
import { CONFIG_TEMPLATE } from '../src/runtime/config/template.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const REFERENCE_AGENT = join(ROOT, 'bench', 'reference-agent.mjs');
export const STEPS = 20;
export const FILES = 4;
const PROMPT = 'read the files';

/** Preloaded into both measured processes: peak RSS of the whole process (all threads) written at exit. */
const RSS_HOOK = `import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(process.env.BENCH_RSS_OUT, String(process.resourceUsage().maxRSS)));
`;

export interface RunSample {
  /** spawn → first model request received by the fake, ms. */
  startMs: number;
  /** Peak RSS of the process, MB (maxRSS at exit). */
  rssMb: number;
  /** Per step: tool-call reply written → next request received, ms. */
  gaps: number[];
  totalMs: number;
  /** Retry lines the run printed on stderr (a failed attempt that was tried again). */
  retries: number;
  /** CPU time of the whole process (every thread, /proc schedstat) per step from request 2 to the last, ms; NaN
   *  where /proc is missing. Load-robust beside the gap: what the process spends, not when it is scheduled. */
  cpuPerStepMs: number;
}

/** Run time on a CPU of every live thread of `pid` (ns, /proc/<pid>/task/<tid>/schedstat), NaN without /proc. */
function processCpuNs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that ended between the listing and its read
      }
    }
    return ns;
  } catch {
    return Number.NaN;
  }
}

const now = (): number => performance.now();

/** The scripted model: each run's requests are timed here; replies depend only on the step index. */
export class ScriptedModel {
  private arrivals: number[] = [];
  private sent: number[] = [];
  /** The measured client's pid: its CPU is read when request 2 and the last request arrive. */
  private pid: number | undefined;
  private cpuAt: number[] = [];

  private constructor(readonly fake: FakeProvider) {}

  static async start(): Promise<ScriptedModel> {
    const box: { model?: ScriptedModel } = {};
    const fake = await FakeProvider.start({ fallback: (req) => (box.model as ScriptedModel).reply(req) });
    box.model = new ScriptedModel(fake);
    return box.model;
  }

  /** Step i < STEPS reads f(i % FILES).txt; then the answer. Same bytes for both clients. */
  private reply(req: RecordedRequest): FakeReply {
    const i = this.arrivals.length;
    this.arrivals.push(now());
    if (i === 1 || i === STEPS) this.cpuAt[i] = processCpuNs(this.pid);
    // the fake writes the whole zero-latency reply synchronously once this returns; the check phase after it
    // is when the last byte has been handed to the socket
    setImmediate(() => this.sent.push(now()));
    // a delegated agent (the `agents` suite's repo actor) ends with agent_exit; a top-level answer is plain text
    if (i >= STEPS && req.agent === 'repo') return { toolCalls: [{ id: 'exit', name: 'agent_exit', arguments: '{"conclusion":"done","status":"ok"}' }] };
    if (i >= STEPS) return { text: 'done: read all the files.', finishReason: 'stop' };
    const thought = `<thought>\ngoal: read\nstep: read ${i}\nreason: bench\n</thought>`;
    return { text: thought, toolCalls: [{ id: `call_${i}`, name: 'read_file', arguments: JSON.stringify({ path: `f${i % FILES}.txt` }) }], finishReason: 'tool_calls' };
  }

  reset(pid?: number): void {
    this.arrivals = [];
    this.sent = [];
    this.cpuAt = [];
    this.pid = pid;
  }

  /** Whole-process CPU per step between request 2 and the last request, ms. */
  cpuPerStepMs(): number {
    return ((this.cpuAt[STEPS] ?? Number.NaN) - (this.cpuAt[1] ?? Number.NaN)) / 1e6 / (STEPS - 1);
  }

  /** Gaps of the run so far: reply i written → request i+1 received. */
  gaps(): number[] {
    return this.arrivals.slice(1).map((t, i) => t - (this.sent[i] ?? Number.NaN));
  }

  firstArrival(): number {
    return this.arrivals[0] ?? Number.NaN;
  }

  get requests(): number {
    return this.arrivals.length;
  }

  close(): Promise<void> {
    return this.fake.close();
  }
}

/** Workspace, data root, config (the production template pointed at the fake) and the RSS hook. */
export function prepare(dir: string, model: Pick<ScriptedModel, 'fake'>): { ws: string; home: string; config: string; hook: string } {
  const ws = join(dir, 'ws');
  const home = join(dir, 'home');
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(home, 'config'), { recursive: true });
  for (let i = 0; i < FILES; i++) writeFileSync(join(ws, `f${i}.txt`), `file ${i}\n`.repeat(50));
  const section = 'global.llm.providers.bench';
  let t = setKeyInSection(CONFIG_TEMPLATE, section, 'api_format', 'openai');
  t = setKeyInSection(t, section, 'api_base_url', model.fake.openaiBaseUrl);
  t = setKeyInSection(t, section, 'model', 'fake-model');
  t = setKeyInSection(t, section, 'api_key', 'bench-key');
  t = setKeyInSection(t, 'global.llm', 'use_provider', 'bench');
  // one provider, one tier: routing has nothing to choose (auto would spend a classifier call on it)
  t = setKeyInSection(t, 'routing', 'mode', 'fixed');
  const config = join(home, 'config', 'config.toml');
  writeFileSync(config, t, { mode: 0o600 });
  const hook = join(dir, 'rss-hook.mjs');
  writeFileSync(hook, RSS_HOOK);
  return { ws, home, config, hook };
}

let seq = 0;

async function measured(model: ScriptedModel, dir: string, hook: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<RunSample> {
  const rssOut = join(dir, `rss-${seq++}`);
  const t0 = now();
  const child = spawn(process.execPath, ['--import', hook, ...args], { env: { ...env, BENCH_RSS_OUT: rssOut }, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  // the spawn returns before its first request can arrive: the run's samples start here, its CPU read by pid
  model.reset(child.pid);
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const totalMs = now() - t0;
  if (code !== 0) throw new Error(`${args[0]} exited ${code}: ${err.slice(-2000)}`);
  if (model.requests !== STEPS + 1) throw new Error(`${args[0]} made ${model.requests} model requests, want ${STEPS + 1}`);
  const retries = err.split('\n').filter((l) => / failed, (retry|step retried) in /.test(l)).length;
  return { startMs: model.firstArrival() - t0, rssMb: Number(readFileSync(rssOut, 'utf8')) / 1024, gaps: model.gaps(), totalMs, retries, cpuPerStepMs: model.cpuPerStepMs() };
}

/** A single-agent run: the Director with every delegation disabled (-d all: no reminder, no delegation spare), auto-approve. */
export function runYagent(model: ScriptedModel, dir: string, p: ReturnType<typeof prepare>, bin = join(ROOT, 'bin', 'yagent.js')): Promise<RunSample> {
  const env = { PATH: process.env.PATH, HOME: dir, YAGENT_HOME: p.home };
  return measured(model, dir, p.hook, [bin, '-c', p.config, '--disable-agents', 'all', '-p', PROMPT, '-y'], env, p.ws);
}

export function runReference(model: ScriptedModel, dir: string, p: ReturnType<typeof prepare>): Promise<RunSample> {
  const env = { PATH: process.env.PATH, HOME: dir };
  return measured(model, dir, p.hook, [REFERENCE_AGENT, model.fake.openaiBaseUrl, p.ws, PROMPT], env, p.ws);
}
