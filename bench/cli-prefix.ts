// `cli` figure: stable prefix. A provider's prompt cache hits only on a byte prefix of the previous request, so
// each model request should be a byte prefix of the next (system prompt, tools, history unchanged; new turns only
// appended). Measured on the request bodies the loopback fake receives from a real two-turn `yagent -p` run.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProvider } from '../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../src/actors/llm/fake/script.js';
import { figure, round, type Figure } from './lib.js';
import { prepare, REFERENCE_AGENT, ROOT, FILES } from './side-by-side.js';

/** Tool steps per turn: a multi-step turn, then a second turn continuing the session. */
const STEPS_PER_TURN = 4;

/** Bytes two buffers share from their start. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export interface PrefixPair {
  /** Share of request i's bytes that open request i+1 (0..1). */
  share: number;
  /** Where they part, with context, for the stderr line of a miss. */
  where: string;
  /** Whether request i+1 opens a new turn (a new user prompt) rather than a step within one. */
  turnBoundary: boolean;
}

/** Per consecutive pair of requests: the share of the first that is a byte prefix of the second. */
export function prefixPairs(raws: string[], boundaries: ReadonlySet<number> = new Set()): PrefixPair[] {
  const out: PrefixPair[] = [];
  for (let i = 0; i + 1 < raws.length; i++) {
    const a = Buffer.from(raws[i] ?? '');
    const b = Buffer.from(raws[i + 1] ?? '');
    const n = commonPrefix(a, b);
    const ctx = (x: Buffer) => JSON.stringify(x.subarray(Math.max(0, n - 40), n + 60).toString('utf8'));
    out.push({ share: a.length > 0 ? n / a.length : 1, where: `byte ${n}/${a.length}: ${ctx(a)} -> ${ctx(b)}`, turnBoundary: boundaries.has(i + 1) });
  }
  return out;
}

/** Replies: STEPS_PER_TURN reads, then an answer; `turn()` restarts the count for the next process. */
class TurnModel {
  private step = 0;
  readonly requests: RecordedRequest[] = [];
  private constructor(readonly fake: FakeProvider) {}

  static async start(): Promise<TurnModel> {
    const box: { m?: TurnModel } = {};
    const fake = await FakeProvider.start({ fallback: (req) => (box.m as TurnModel).reply(req) });
    box.m = new TurnModel(fake);
    return box.m;
  }

  private reply(req: RecordedRequest): FakeReply {
    this.requests.push(req);
    const i = this.step++;
    if (i >= STEPS_PER_TURN) return { text: 'done: read the files.', finishReason: 'stop' };
    return { text: `<thought>\nstep: read ${i}\n</thought>`, toolCalls: [{ id: `call_${this.requests.length}`, name: 'read_file', arguments: JSON.stringify({ path: `f${i % FILES}.txt` }) }], finishReason: 'tool_calls' };
  }

  turn(): number {
    this.step = 0;
    return this.requests.length;
  }
}

async function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`${args[0]} exited ${code}: ${err.slice(-2000)}`);
}

/** Two turns of `yagent -p` (the second with --continue), production template, delegation on; the reference agent
 *  loop's one turn on the same script is the baseline (a bare append-only loop: what a byte prefix can reach). */
export async function prefixFigures(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-prefix-'));
  const model = await TurnModel.start();
  try {
    const p = prepare(dir, model);
    const env = { PATH: process.env.PATH, HOME: dir, YAGENT_HOME: p.home };
    const bin = join(ROOT, 'bin', 'yagent.js');
    const boundaries = new Set<number>();
    await run([bin, '-c', p.config, '-p', 'read the files', '-y'], env, p.ws);
    boundaries.add(model.turn());
    await run([bin, '-c', p.config, '--continue', '-p', 'read them again', '-y'], env, p.ws);
    const oursEnd = model.turn();
    await run([REFERENCE_AGENT, model.fake.openaiBaseUrl, p.ws, 'read the files'], { PATH: process.env.PATH, HOME: dir }, p.ws);
    const raws = model.requests.map((r) => r.raw);
    const ours = prefixPairs(raws.slice(0, oursEnd), boundaries);
    const ref = prefixPairs(raws.slice(oursEnd));
    if (ours.length < 2 * STEPS_PER_TURN + 1) throw new Error(`yagent made ${oursEnd} model requests, want ${2 * (STEPS_PER_TURN + 1)}`);
    const shares = ours.map((x) => x.share);
    const worst = ours.reduce((w, x) => (x.share < w.share ? x : w));
    process.stderr.write(`cli: stable prefix per request ${shares.map((s) => round(100 * s)).join(' ')} % (turn boundary at ${[...boundaries].join(',')}) | reference ${ref.map((x) => round(100 * x.share)).join(' ')} %\n`);
    process.stderr.write(`cli: stable prefix worst ${worst.turnBoundary ? 'turn' : 'step'} pair parts at ${worst.where}\n`);
    // the figure is the worst pair (a step or the turn boundary), in percent; min/max span every pair
    const pct = (xs: number[]) => xs.map((s) => 100 * s);
    const low = (xs: number[]) => ({ median: Math.min(...xs), min: Math.min(...xs), max: Math.max(...xs), p99: Math.min(...xs) });
    return [
      figure('stable_prefix_share', '%', low(pct(shares)), '>= 95% of each request is a byte prefix of the next (worst pair, steps and turns)', (v) => v >= 95, { label: 'reference agent loop: the same share, worst pair of its one turn on the same script', value: Math.min(...pct(ref.map((x) => x.share))) }),
    ];
  } finally {
    await model.fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
