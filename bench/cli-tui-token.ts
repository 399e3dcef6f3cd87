// `cli` figure: first streamed token at the socket → on screen in the TUI, while a delegation streams in parallel.
// Ours: the real TUI on the real local host (workers, dispatcher, store) painting into @xterm/headless; the Director
// delegates two repo agents at once, one streams a long answer, the other's calls each open with a marker token.
// Baseline, same run and same fake: a bare node:http stream in this thread drawing its first token into a bare
// blessed box on the same kind of terminal, beside a bare parallel stream drawn on every chunk.
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type * as Blessed from 'blessed';
import type * as XtermNs from '@xterm/headless';
import type { FakeProvider } from '../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../src/actors/llm/fake/script.js';
import { figure, round, stats, type Figure } from './lib.js';

const TOKENS = 40;
const LONG_CHUNKS = 1500;
const LONG_GAP_MS = 4;

/** This (main) thread's time on a CPU and waiting in the run queue so far, ms (Linux schedstat; zeros elsewhere): the
 *  stderr split says whether a write waited for the emulator because the thread worked or because it had no core. */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const hasSched = existsSync(SCHEDSTAT);
function sched(): [number, number] {
  if (!hasSched) return [0, 0];
  const [cpu = 0, wait = 0] = readFileSync(SCHEDSTAT, 'utf8').split(' ').map(Number);
  return [cpu / 1e6, wait / 1e6];
}

/** A terminal emulator fed by blessed; `onParsed` runs after each write has been parsed into its cells. */
function term(onParsed: (rows: () => string, writtenAt: number, schedAt: [number, number]) => void) {
  const xterm = createRequire(import.meta.url)('@xterm/headless') as typeof XtermNs;
  const t = new xterm.Terminal({ cols: 120, rows: 40, allowProposedApi: true });
  const rows = (): string => Array.from({ length: 40 }, (_, y) => t.buffer.active.getLine(y)?.translateToString(true) ?? '').join('\n');
  const output = Object.assign(new Writable({ write: (c: Buffer, _e, cb) => {
    const at = performance.now();
    const s = sched();
    t.write(c.toString('utf8'), () => onParsed(rows, at, s));
    cb();
  } }), { columns: 120, rows: 40, isTTY: true });
  const input = new PassThrough();
  return { io: { input: Object.assign(input, { isTTY: true, setRawMode: () => input }), output }, dispose: () => t.dispose() };
}

/** Markers sent at t0 (ms, performance.now) and seen on screen at t1. */
class Seen {
  readonly sent = new Map<string, number>();
  readonly shown = new Map<string, number>();
  /** When the marker's ai_chunk reached the TUI's subscription (ours only): splits the path in two. */
  readonly arrived = new Map<string, number>();
  /** When the write whose parsing showed the marker was handed to the terminal (both sides): paint | emulator. */
  readonly written = new Map<string, number>();
  /** Per marker: `to` minus `from` (markers present in both). */
  gap(from: Map<string, number>, to: Map<string, number>): number[] {
    return [...from].filter(([k]) => to.has(k)).map(([k, t]) => (to.get(k) as number) - t);
  }
  split(): string {
    const f = (xs: number[]): string => `p50 ${round(stats(xs).median)} p99 ${round(stats(xs).p99)}`;
    const wp = this.gap(this.written, this.shown);
    const sum = wp.reduce((a, b) => a + b, 0);
    return `sent -> written ${f(this.gap(this.sent, this.written))}, written -> parsed (terminal) ${f(wp)} ms (of its ${round(sum)} ms over ${wp.length} markers this thread ran ${round(this.parse.cpu)}, waited for a core ${round(this.parse.queued)})`;
  }
  /** Over written -> parsed, summed over the markers: this thread on a CPU, and runnable without one (ms). */
  readonly parse = { cpu: 0, queued: 0 };
  check(rows: () => string, writtenAt: number, schedAt: [number, number]): void {
    if (this.sent.size === this.shown.size) return;
    const now = performance.now();
    const text = rows();
    for (const k of this.sent.keys()) {
      if (this.shown.has(k) || !text.includes(k)) continue;
      this.shown.set(k, now);
      this.written.set(k, writtenAt);
      const [cpu, queued] = sched();
      this.parse.cpu += cpu - schedAt[0];
      this.parse.queued += queued - schedAt[1];
    }
  }
  latencies(): number[] {
    return [...this.sent].filter(([k]) => this.shown.has(k)).map(([k, t0]) => (this.shown.get(k) as number) - t0);
  }
}

const marker = (i: number): string => `QX${String(i).padStart(2, '0')}Z`;
const longReply = (exit: boolean): FakeReply => ({
  text: Array.from({ length: LONG_CHUNKS }, (_, i) => `w${i % 10} `),
  chunkDelayMs: LONG_GAP_MS,
  ...(exit ? { toolCalls: [{ id: 'exit-long', name: 'agent_exit', arguments: JSON.stringify({ conclusion: 'streamed', status: 'ok', facts: [], artifacts: [] }) }] } : {}),
});

async function ours(): Promise<{ lat: number[]; during: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-tui-token-'));
  const saved = { home: process.env.YAGENT_HOME, script: process.env.YAGENT_FAKE_SCRIPT };
  process.env.YAGENT_HOME = join(dir, 'home');
  delete process.env.YAGENT_FAKE_SCRIPT;
  const ws = join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'f.txt'), 'one line\n');
  const seen = new Seen();
  let longEnd = Infinity;
  let n = 0;
  const repo = (req: RecordedRequest): FakeReply => {
    const all = JSON.stringify(req.body.messages ?? []);
    if (all.includes('long stream')) {
      const r = longReply(true);
      setTimeout(() => (longEnd = performance.now()), LONG_CHUNKS * LONG_GAP_MS).unref();
      return r;
    }
    if (n >= TOKENS) return { toolCalls: [{ id: 'exit-tok', name: 'agent_exit', arguments: JSON.stringify({ conclusion: 'tokens sent', status: 'ok', facts: [], artifacts: [] }) }] };
    const k = marker(n++);
    // the fake writes the status line and the first events synchronously once this returns: t0 is at most that early
    seen.sent.set(k, performance.now());
    return { text: [k, ' reading'], toolCalls: [{ id: `read-${k}`, name: 'read_file', arguments: JSON.stringify({ path: 'f.txt' }) }] };
  };
  const director = (req: RecordedRequest): FakeReply =>
    JSON.stringify(req.body.messages ?? []).includes('tokens sent')
      ? { text: 'both done', finishReason: 'stop' }
      : { toolCalls: [
          { id: 'd1', name: 'delegate_repo', arguments: JSON.stringify({ task: 'long stream: describe the workspace at length', context_refs: [] }) },
          { id: 'd2', name: 'delegate_repo', arguments: JSON.stringify({ task: 'marker tokens: read f.txt again and again', context_refs: [] }) },
        ] };
  try {
    const { withLocalHost } = await import('../bin/host/session.js');
    const { localBackend } = await import('../bin/tui/backend.js');
    const { TuiApp } = await import('../bin/tui/app.js');
    const { DEFAULT_BINDINGS } = await import('../bin/tui/keys.js');
    const script = (fake: FakeProvider): void => {
      fake.script('director', ...Array.from({ length: 6 }, () => director));
      fake.script('repo', ...Array.from({ length: 4 * TOKENS }, () => repo));
    };
    // screen: as bin/tui/run.ts opens its host (the TUI draws in this process: workers run below its main thread)
    await withLocalHost({ configPath: undefined, baseConfig: 'template', script, screen: true, io: { stdout: () => undefined, stderr: () => undefined } }, async (host) => {
      const t = term((rows, at, s) => seen.check(rows, at, s));
      const base = localBackend(host, ws, { yolo: true, fullYolo: false, disabledAgents: [] });
      let started: (done: Promise<unknown>) => void = () => undefined;
      const finished = new Promise<Promise<unknown>>((r) => (started = r));
      const subscribe: typeof base.subscribe = (on) => base.subscribe((env) => {
        const p = env.payload;
        if (p.type === 'ai_chunk' && /QX\d\dZ/.test(p.text)) seen.arrived.set(/QX\d\dZ/.exec(p.text)?.[0] ?? '', performance.now());
        on(env);
      });
      const backend = { ...base, subscribe, start: async (...a: Parameters<typeof base.start>) => {
        const r = await base.start(...a);
        started(r.done);
        return r;
      } };
      const app = new TuiApp({ backend, bindings: DEFAULT_BINDINGS, io: t.io });
      app.submit('go');
      await (await finished);
      await app.quit();
      t.dispose();
    });
  } finally {
    if (saved.home === undefined) delete process.env.YAGENT_HOME;
    else process.env.YAGENT_HOME = saved.home;
    if (saved.script !== undefined) process.env.YAGENT_FAKE_SCRIPT = saved.script;
    rmSync(dir, { recursive: true, force: true });
  }
  const during = [...seen.sent.values()].filter((t0) => t0 < longEnd).length;
  const toEvent = [...seen.arrived].map(([k, t]) => t - (seen.sent.get(k) ?? t));
  const toScreen = [...seen.arrived].filter(([k]) => seen.shown.has(k)).map(([k, t]) => (seen.shown.get(k) as number) - t);
  process.stderr.write(`cli: first token -> TUI event p50 ${round(stats(toEvent).median)} p99 ${round(stats(toEvent).p99)} ms; TUI event -> screen (paint + terminal) p50 ${round(stats(toScreen).median)} p99 ${round(stats(toScreen).p99)} ms (event -> written p50 ${round(stats(seen.gap(seen.arrived, seen.written)).median)} p99 ${round(stats(seen.gap(seen.arrived, seen.written)).p99)}); ${seen.split()}\n`);
  return { lat: seen.latencies(), during };
}

/** One streamed request with a bare node:http client in this thread; `onData` gets the accumulated body. */
function stream(fake: FakeProvider, agent: string, onData: (body: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: agent }] });
    const req = request(`${fake.openaiBaseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-yagent-agent': agent } }, (res) => {
      let acc = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => onData((acc += c)));
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The floor: the same fake replies read by bare node:http in this thread, the first token drawn into a bare blessed
 *  box (setContent + render) while a parallel bare stream is drawn at most once per 33 ms frame. */
async function bare(): Promise<number[]> {
  const { FakeProvider: Fake } = await import('../src/actors/llm/fake/server.js');
  const { default: blessed } = (await import('blessed')) as unknown as { default: typeof Blessed };
  const seen = new Seen();
  const fake = await Fake.start();
  const t = term((rows, at, s) => seen.check(rows, at, s));
  const screen = blessed.screen({ input: t.io.input as never, output: t.io.output as never, terminal: 'xterm-256color', fullUnicode: true, warnings: false });
  const longBox = blessed.box({ parent: screen, top: 0, width: 120, height: 30 });
  const tokBox = blessed.box({ parent: screen, top: 30, width: 120, height: 10 });
  screen.render();
  let last = -Infinity;
  let n = 0;
  fake.script('bare-long', longReply(false));
  fake.script('bare-tok', ...Array.from({ length: TOKENS }, () => (): FakeReply => {
    const k = marker(n++);
    seen.sent.set(k, performance.now());
    return { text: [k, ' reading'], finishReason: 'stop' };
  }));
  try {
    const long = stream(fake, 'bare-long', (acc) => {
      if (performance.now() - last < 1000 / 30) return;
      last = performance.now();
      longBox.setContent(acc.slice(-2000));
      screen.render();
    });
    for (let i = 0; i < TOKENS; i++) {
      const k = marker(i);
      let drawn = false;
      await stream(fake, 'bare-tok', (acc) => {
        if (drawn || !acc.includes(k)) return;
        drawn = true;
        tokBox.setContent(k);
        screen.render();
        // the same sending as ours: the frame leaves now, not at blessed's next setImmediate
        (screen.program as Blessed.BlessedProgram & { flush(): void }).flush();
      });
      while (!seen.shown.has(k)) await new Promise((r) => setImmediate(r));
    }
    await long;
  } finally {
    screen.destroy();
    t.dispose();
    await fake.close();
  }
  process.stderr.write(`cli: bare ${seen.split()}\n`);
  return seen.latencies();
}

/** p99 of first token → on screen, ours beside the bare floor (each run alternates which side goes first). */
export async function tuiTokenFigures(runs = 3): Promise<Figure[]> {
  const mine: number[] = [];
  const base: number[] = [];
  let lost = 0;
  let outside = 0;
  for (let r = 0; r < runs; r++) {
    const a = async (): Promise<void> => {
      const o = await ours();
      mine.push(...o.lat);
      lost += TOKENS - o.lat.length;
      outside += TOKENS - o.during;
    };
    const b = async (): Promise<void> => void base.push(...(await bare()));
    if (r % 2 === 0) await a().then(b);
    else await b().then(a);
  }
  const p99 = (xs: number[]) => ({ ...stats(xs), median: stats(xs).p99 });
  process.stderr.write(`cli: first token -> screen ours p50 ${round(stats(mine).median)} p99 ${round(stats(mine).p99)} ms (${mine.length} tokens, ${lost} never shown, ${outside} sent after the parallel stream ended) | bare p50 ${round(stats(base).median)} p99 ${round(stats(base).p99)} ms\n`);
  return [
    figure('tui_first_token_to_screen_p99', 'ms', p99(mine), `<= 16 ms p99 while a delegation streams (lost: ${lost}, outside the parallel stream: ${outside})`, (v) => v <= 16 && lost === 0 && outside === 0, {
      label: 'bare node:http stream in one thread -> bare blessed box render into the same headless terminal, a parallel bare stream drawn per frame (p99)',
      value: stats(base).p99,
    }),
  ];
}
