// Suite `cli`: `yagent -p` process start → first model request, and peak RSS of a 20-step single-agent run,
// each beside a minimal raw Node agent loop doing the same round trips in the same run.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { figure, repeat, stats, type Suite } from './lib.js';

const ROOT = resolve(import.meta.dirname, '../..');
const STEPS = 20;
const RUNS = 5;

/** Preloaded into each measured process: its peak RSS (worker threads included) written at exit. */
const RSS_HOOK = `import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(process.env.BENCH_RSS_OUT, String(process.resourceUsage().maxRSS)));
`;

/** The scripted model: the first request's arrival time is written, then 20 reads, then the answer. */
const SCRIPT = `import { writeFileSync, existsSync } from 'node:fs';
const read = (i) => ({ text: '<thought>\\ngoal: read\\nstep: read ' + i + '\\nreason: bench\\n</thought>', toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'f' + (i % 4) + '.txt' }) }], finishReason: 'tool_calls' });
const first = (req) => { if (!existsSync(process.env.BENCH_FIRST_OUT)) writeFileSync(process.env.BENCH_FIRST_OUT, String(performance.timeOrigin + performance.now())); return read(0); };
const say = { text: 'done', finishReason: 'stop' };
export default { director: [first, ...Array.from({ length: ${STEPS - 1} }, (_, i) => read(i + 1)), say, say, say, say] };
`;

/** The floor: a minimal Node agent loop (fetch → read a file → fetch) against a local server. */
const RAW_LOOP = `import { readFileSync } from 'node:fs';
const url = process.env.BENCH_URL;
let history = [{ role: 'user', content: 'go' }];
for (let i = 0; i <= ${STEPS}; i++) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: history }) });
  const reply = await res.json();
  if (!reply.tool) break;
  history.push({ role: 'tool', content: readFileSync(reply.tool, 'utf8') });
}
`;

interface Sample {
  firstMs: number;
  rssMb: number;
  totalMs: number;
}

function runProcess(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ t0: number; code: number | null; end: number }> {
  const t0 = performance.timeOrigin + performance.now();
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'ignore', 'ignore'] });
  return new Promise((r) => child.on('close', (code) => r({ t0, code, end: performance.timeOrigin + performance.now() })));
}

async function yagentRun(dir: string): Promise<Sample> {
  const firstOut = join(dir, `first-${Math.random()}`);
  const rssOut = join(dir, `rss-${Math.random()}`);
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    YAGENT_HOME: join(dir, 'home'),
    YAGENT_FAKE_SCRIPT: join(dir, 'script.mjs'),
    BENCH_FIRST_OUT: firstOut,
    BENCH_RSS_OUT: rssOut,
  };
  const r = await runProcess(['--import', join(dir, 'rss-hook.mjs'), join(ROOT, 'bin', 'yagent.js'), '-p', 'read the files', '-y'], env, join(dir, 'ws'));
  if (r.code !== 0) throw new Error(`yagent -p exited ${r.code}`);
  return { firstMs: Number(readFileSync(firstOut, 'utf8')) - r.t0, rssMb: Number(readFileSync(rssOut, 'utf8')) / 1024, totalMs: r.end - r.t0 };
}

async function rawRun(dir: string): Promise<Sample> {
  let first = 0;
  let n = 0;
  const server = createServer((req, res) => {
    if (first === 0) first = performance.timeOrigin + performance.now();
    req.resume();
    req.on('end', () => res.end(JSON.stringify(n++ < STEPS ? { tool: join(dir, 'ws', `f${n % 4}.txt`) } : { text: 'done' })));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const rssOut = join(dir, `raw-rss-${Math.random()}`);
  const env = { PATH: process.env.PATH, BENCH_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, BENCH_RSS_OUT: rssOut };
  const r = await runProcess(['--import', join(dir, 'rss-hook.mjs'), join(dir, 'raw-loop.mjs')], env, dir);
  await new Promise<void>((res) => server.close(() => res()));
  return { firstMs: first - r.t0, rssMb: Number(readFileSync(rssOut, 'utf8')) / 1024, totalMs: r.end - r.t0 };
}

const suite: Suite = {
  name: 'cli',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-cli-'));
    try {
      mkdirSync(join(dir, 'ws'));
      mkdirSync(join(dir, 'home', 'config'), { recursive: true });
      for (let i = 0; i < 4; i++) writeFileSync(join(dir, 'ws', `f${i}.txt`), `file ${i}\n`.repeat(50));
      writeFileSync(join(dir, 'script.mjs'), SCRIPT);
      writeFileSync(join(dir, 'rss-hook.mjs'), RSS_HOOK);
      writeFileSync(join(dir, 'raw-loop.mjs'), RAW_LOOP);
      const ours: Sample[] = [];
      const raw: Sample[] = [];
      await repeat(RUNS, async () => {
        ours.push(await yagentRun(dir));
        raw.push(await rawRun(dir));
        return 0;
      });
      const pick = (xs: Sample[], k: keyof Sample): number[] => xs.slice(-RUNS).map((s) => s[k]);
      const base = (k: keyof Sample, label: string) => ({ label, value: stats(pick(raw, k)).median });
      return [
        figure('start_to_first_model_request', 'ms', pick(ours, 'firstMs'), '< 1680 ms (fastest Node peer, gemini-cli); codex 240 ms', (v) => v < 1680, base('firstMs', 'raw Node loop: spawn → first fetch')),
        figure('peak_rss_20_step_run', 'MB', pick(ours, 'rssMb'), '< 262 MB (lowest Node peer); stretch < 159 MB (codex)', (v) => v < 262, base('rssMb', 'raw Node loop, 20 round trips + reads')),
        figure('total_20_step_run', 'ms', pick(ours, 'totalMs'), 'informational (gemini-cli 2.0 s, codex 1.6 s)', () => true, base('totalMs', 'raw Node loop, whole process')),
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
