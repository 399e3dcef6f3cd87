// Suite `queue` (issue 27): batch through a Redis queue. (1) Overhead per task, enqueue → a worker starts it: our
// producer (the `batch --queue --detach` code, in this process) and a real `yagent worker` process, beside a bare
// BullMQ pair (new Queue + add + close; a bare Worker process, bench/queue-bare-worker.mjs) on the same Redis,
// samples alternating. (2) 200 scripted tasks through 4 `yagent worker` processes, beside the same tasks in one local
// `yagent batch --parallel 4`: both the real CLI on the same scripted model.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { runQueueBatch } from '../bin/cli/queue/producer.js';
import { parseQueueUrl } from '../bin/cli/queue/url.js';
import { alternate, figure, pairedFigure, round, stats, type Figure, type Suite } from './lib.js';
import { ROOT } from './side-by-side.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const MANY = Number(process.env.BENCH_QUEUE_TASKS ?? 200);
const BIN = join(ROOT, 'bin', 'yagent.js');
const SCRIPT = `const say = (text) => ({ text, finishReason: 'stop' });
export default { director: Array.from({ length: ${MANY * 4 + 100} }, () => say('done')) };
`;

/** A process whose output lines are awaited by pattern (each line is seen once, in order). */
class Lines {
  private seen: string[] = [];
  private waiters: { re: RegExp; resolve: (t: number) => void }[] = [];
  constructor(readonly child: ChildProcess, stream: 'stdout' | 'stderr') {
    let buf = '';
    child[stream]?.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const now = performance.now();
        const w = this.waiters.findIndex((x) => x.re.test(line));
        if (w >= 0) this.waiters.splice(w, 1)[0]?.resolve(now);
        else this.seen.push(line);
      }
    });
  }
  /** The time the first line matching `re` arrived (now or later). */
  next(re: RegExp): Promise<number> {
    const i = this.seen.findIndex((l) => re.test(l));
    if (i >= 0) {
      this.seen.splice(i, 1);
      return Promise.resolve(performance.now());
    }
    return new Promise((resolve) => this.waiters.push({ re, resolve }));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

/** The process's CPU time (utime + stime, clock ticks) from /proc. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

/** Waits until `pid` spent at most one clock tick of CPU in 100 ms: a yagent worker refills its agent thread spares
 *  after a task, and a sample taken during that measures the refill, not the queue. Both sides wait the same way. */
async function quiet(pid: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const before = cpuTicks(pid);
    await new Promise((r) => setTimeout(r, 100));
    if (cpuTicks(pid) - before <= 1) return;
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));
}

const suite: Suite = {
  name: 'queue',
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-queue-'));
    const home = join(dir, 'home');
    mkdirSync(join(home, 'config'), { recursive: true });
    mkdirSync(join(dir, 'tmp'));
    mkdirSync(join(dir, 'ws'));
    mkdirSync(join(dir, 'redis'));
    writeFileSync(join(dir, 'script.mjs'), SCRIPT);
    const env = { PATH: process.env.PATH, HOME: dir, YAGENT_HOME: home, TMPDIR: join(dir, 'tmp'), NO_COLOR: '1', YAGENT_FAKE_SCRIPT: join(dir, 'script.mjs') };
    const port = await freePort();
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', join(dir, 'redis'), '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const children: ChildProcess[] = [redis];
    try {
      await new Lines(redis, 'stdout').next(/Ready to accept connections/);
      const url = `redis://127.0.0.1:${port}`;
      const overhead = await overheadFigure(dir, env, url, port, children);
      const many = await manyFigure(dir, env, url, children);
      return [overhead, many];
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await Promise.all(children.map(exited));
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

async function overheadFigure(dir: string, env: NodeJS.ProcessEnv, url: string, port: number, children: ChildProcess[]): Promise<Figure> {
  const ours = spawn(process.execPath, [BIN, 'worker', '--queue', `${url}?queue=ours`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const bare = spawn(process.execPath, [join(ROOT, 'bench', 'queue-bare-worker.mjs'), '127.0.0.1', String(port), 'bare'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(ours, bare);
  const oursLines = new Lines(ours, 'stderr');
  const bareLines = new Lines(bare, 'stdout');
  await Promise.all([oursLines.next(/taking tasks/), bareLines.next(/^ready/)]);
  const target = parseQueueUrl(`${url}?queue=ours`);
  const silent = { stdout: () => undefined, stderr: () => undefined };
  let n = 0;
  const oursSample = async (): Promise<number> => {
    const id = `o${++n}`;
    const file = join(dir, `${id}.jsonl`);
    writeFileSync(file, `${JSON.stringify({ id, prompt: 'go', workspace: 'ws' })}\n`);
    await quiet(ours.pid ?? 0);
    const t0 = performance.now();
    const started = oursLines.next(new RegExp(` ${id}: started`));
    await runQueueBatch({ file, target, detach: true, attempts: 1, backoffMs: 1000, out: undefined, defaults: { yolo: false, fullYolo: false, disabledAgents: [] }, io: silent, isTty: false });
    const t1 = await started;
    await oursLines.next(new RegExp(` ${id}: ok`));
    return t1 - t0;
  };
  const bareSample = async (): Promise<number> => {
    const id = `b${++n}`;
    await quiet(bare.pid ?? 0);
    const t0 = performance.now();
    const started = bareLines.next(new RegExp(`^start ${id}$`));
    const q = new Queue('bare', { connection: { host: '127.0.0.1', port } });
    await q.add('task', { id, prompt: 'go' }, { jobId: id });
    await q.close();
    const t1 = await started;
    await bareLines.next(new RegExp(`^done ${id}$`));
    return t1 - t0;
  };
  const [o, b] = await alternate(RUNS, oursSample, bareSample);
  process.stderr.write(`queue: enqueue → start, ours ${o.map(round).join(' ')} ms | bare ${b.map(round).join(' ')} ms\n`);
  ours.kill('SIGTERM');
  bare.kill('SIGTERM');
  await Promise.all([exited(ours), exited(bare)]);
  return pairedFigure('queue_overhead_per_task', 'ms', o, b, '<= 1.5x the bare BullMQ pair', (v, base) => v <= 1.5 * base, 'bare BullMQ: new Queue + add + close -> a bare Worker process calls its processor (same Redis, pairs alternate)');
}

async function manyFigure(dir: string, env: NodeJS.ProcessEnv, url: string, children: ChildProcess[]): Promise<Figure> {
  const tasks = join(dir, 'many.jsonl');
  writeFileSync(tasks, Array.from({ length: MANY }, (_, i) => JSON.stringify({ id: `m${i}`, prompt: `task ${i}`, workspace: 'ws' })).join('\n'));
  // the local baseline first: the same tasks, one process, 4 at a time
  let t0 = performance.now();
  const local = spawn(process.execPath, [BIN, 'batch', tasks, '--parallel', '4', '--out', join(dir, 'local.results.jsonl')], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  children.push(local);
  if ((await exited(local)) !== 0) throw new Error('the local batch failed');
  const localMs = performance.now() - t0;
  const workers = Array.from({ length: 4 }, (_, i) => spawn(process.execPath, [BIN, 'worker', '--queue', `${url}?queue=many`, '--name', `w${i}`], { env, stdio: ['ignore', 'ignore', 'pipe'] }));
  children.push(...workers);
  await Promise.all(workers.map((w) => new Lines(w, 'stderr').next(/taking tasks/)));
  t0 = performance.now();
  const batch = spawn(process.execPath, [BIN, 'batch', tasks, '--queue', `${url}?queue=many`], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  children.push(batch);
  if ((await exited(batch)) !== 0) throw new Error('the queued batch failed');
  const queuedMs = performance.now() - t0;
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(workers.map(exited));
  process.stderr.write(`queue: ${MANY} tasks, 4 workers ${round(queuedMs)} ms (${round((MANY * 1000) / queuedMs)} tasks/s) | local --parallel 4 ${round(localMs)} ms\n`);
  return figure(`tasks_${MANY}_4_workers_wall`, 'ms', stats([queuedMs]), '<= 1.5x one local batch --parallel 4 (same tasks, same scripted model)', (v, base) => v <= 1.5 * (base ?? 0), {
    label: `yagent batch --parallel 4 of the same ${MANY} tasks on one machine (the workers were started before the clock)`,
    value: localMs,
  });
}

export default suite;
