// Suite `cli`: `yagent -p` beside the reference agent loop (bench/reference-agent.mjs), both separate
// processes on the same loopback fake model with the same 20-step script, runs alternating A/B.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Blessed from 'blessed';
import { figure, pairedFigure, round, stats, type Figure, type Suite } from './lib.js';
import { prepare, runReference, runYagent, ScriptedModel, type RunSample } from './side-by-side.js';
import { prefixFigures } from './cli-prefix.js';
import { tuiTokenFigures } from './cli-tui-token.js';
import { startFloors } from './cli-start-floor.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

/** TUI: start → first frame and keystroke → echo (p50/p99), beside a bare blessed screen doing the same paint
 *  through the same key parser; both on in-memory 120x40 terminals, samples alternating. The first frame paints the
 *  whole screen on both sides; for a key ours redraws only its box of typed lines (one 120-cell line here), so the
 *  bare echo redraws a 120x1 box with the typed text (a full-screen box would draw 40x the cells ours draws). */
export async function tuiFigures(): Promise<Figure[]> {
  const { PassThrough, Writable } = await import('node:stream');
  const { default: blessed } = (await import('blessed')) as unknown as { default: typeof Blessed };
  const { TuiApp } = await import('../bin/tui/app.js');
  const { DEFAULT_BINDINGS } = await import('../bin/tui/keys.js');
  let wrote: (() => void) | null = null;
  const term = () => {
    const output = Object.assign(new Writable({ write: (_c, _e, cb) => (wrote?.(), cb()) }), { columns: 120, rows: 40, isTTY: true });
    const input = new PassThrough();
    return { input: Object.assign(input, { isTTY: true, setRawMode: () => input }), output };
  };
  const idle = { where: 'local', start: () => Promise.reject(new Error('bench')), cancel: async () => {}, pause: async () => {}, resume: async () => {}, pauseActor: async () => [], respond: async () => {}, subscribe: () => () => undefined, tree: async () => null, timeline: async () => [] };
  const bare = (io: ReturnType<typeof term>) => {
    const screen = blessed.screen({ input: io.input as never, output: io.output as never, terminal: 'xterm-256color', fullUnicode: true, warnings: false });
    const page = blessed.box({ parent: screen, width: 120, height: 40 });
    screen.render();
    const echoes = () => {
      page.detach();
      const box = blessed.box({ parent: screen, top: 38, width: 120, height: 1 });
      let text = '';
      screen.on('keypress', (ch: string | undefined) => (box.setContent((text += ch ?? '')), screen.render()));
      screen.render();
    };
    return { echoes, close: () => screen.destroy() };
  };
  const ours = (io: ReturnType<typeof term>) => {
    const app = new TuiApp({ backend: idle, bindings: DEFAULT_BINDINGS, io });
    return { echoes: () => undefined, close: () => app.quit() };
  };
  const echo = async (io: ReturnType<typeof term>): Promise<number> => {
    const t0 = performance.now();
    await new Promise<void>((r) => ((wrote = r), io.input.write('x')));
    wrote = null;
    return performance.now() - t0;
  };
  const first: Record<'ours' | 'bare', number[]> = { ours: [], bare: [] };
  const keys: Record<'ours' | 'bare', number[]> = { ours: [], bare: [] };
  for (let i = 0; i < 8; i++) {
    for (const side of i % 2 === 0 ? (['ours', 'bare'] as const) : (['bare', 'ours'] as const)) {
      const io = term();
      const t0 = performance.now();
      const h = side === 'ours' ? ours(io) : bare(io);
      first[side].push(performance.now() - t0);
      h.echoes();
      // the first pair runs every key path cold (JIT, lazy inits, both sides): its echoes are dropped, like its frame
      for (let k = 0; k < 60; k++) {
        const ms = await echo(io);
        if (i > 0) keys[side].push(ms);
      }
      await h.close();
    }
  }
  // the first pair warmed the module cache: drop its frames (its echoes were not kept)
  const warm = (xs: number[]) => xs.slice(1);
  const p99 = (xs: number[]) => ({ ...stats(xs), median: stats(xs).p99 });
  process.stderr.write(`cli: tui first frame ${warm(first.ours).map(round).join(' ')} | bare blessed ${warm(first.bare).map(round).join(' ')}\n`);
  return [
    figure('tui_start_to_first_frame', 'ms', warm(first.ours), '<= 4x a bare blessed screen (and <= 300 ms)', (v, b) => v <= 4 * (b ?? 0) && v <= 300, { label: 'bare blessed screen: create + first render', value: stats(warm(first.bare)).median }),
    figure('tui_keystroke_echo_p50', 'ms', keys.ours, '<= 3x a bare blessed echo', (v, b) => v <= 3 * (b ?? 0), { label: 'bare blessed: keypress -> setContent + render of a 120x1 box', value: stats(keys.bare).median }),
    figure('tui_keystroke_echo_p99', 'ms', p99(keys.ours), '<= 3x a bare blessed echo p99 (and <= 16 ms)', (v, b) => v <= 3 * (b ?? 0) && v <= 16, { label: 'bare blessed: keypress -> setContent + render of a 120x1 box (p99)', value: stats(keys.bare).p99 }),
  ];
}

/** TUI under a 10k ai_chunk flood through its event path (with an approval request every 1000 chunks): frame
 *  time p50/p99 beside a bare blessed box painting the same accumulated text at the same frame slots. */
export async function floodFigures(): Promise<Figure[]> {
  const { PassThrough, Writable } = await import('node:stream');
  const { default: blessed } = (await import('blessed')) as unknown as { default: typeof Blessed };
  const { TuiApp } = await import('../bin/tui/app.js');
  const { DEFAULT_BINDINGS } = await import('../bin/tui/keys.js');
  type Env = Parameters<InstanceType<typeof TuiApp>['onEnvelope']>[0];
  const CHUNKS = 10_000;
  const PER_FRAME = 100;
  const HELP_EVERY = 1000;
  const term = () => {
    const output = Object.assign(new Writable({ write: (_c, _e, cb) => cb() }), { columns: 120, rows: 40, isTTY: true });
    const input = new PassThrough();
    return { input: Object.assign(input, { isTTY: true, setRawMode: () => input }), output };
  };
  let seq = 0;
  const env = (payload: Env['payload']): Env => ({ seq: ++seq, taskId: 't', delegationId: null, source: 'director', type: payload.type, lane: payload.type === 'user_help_needed' ? 'critical' : 'normal', ts: 0, payload });
  const chunk = (i: number) => `tok${i % 97} ${i % 13 === 0 ? '\n' : ''}`;
  /** One flood; returns per-frame paint times and how many approval dialogs arrived. */
  const ours = async (): Promise<{ frames: number[]; helps: number; chars: number }> => {
    let now = 0;
    let timer: (() => void) | null = null;
    const clock = { now: () => now, setTimeout: (fn: () => void) => ((timer = fn), { cancel: () => (timer = null) }) };
    let deliver: (e: Env) => void = () => undefined;
    let end: () => void = () => undefined;
    const backend = { where: 'local', start: () => Promise.resolve({ taskId: 't', done: new Promise<null>((r) => (end = () => r(null))) }), cancel: async () => end(), pause: async () => {}, resume: async () => {}, pauseActor: async () => [], respond: async () => {}, subscribe: (on: (e: Env) => void) => ((deliver = on), () => undefined), tree: async () => null, timeline: async () => [] };
    const app = new TuiApp({ backend, bindings: DEFAULT_BINDINGS, io: term(), clock });
    app.submit('flood');
    await new Promise((r) => setImmediate(r)); // the turn has its task id
    const frames: number[] = [];
    const paint = app.paint.bind(app);
    app.paint = () => {
      const t0 = performance.now();
      paint();
      frames.push(performance.now() - t0);
    };
    deliver(env({ type: 'ai_stream_start', agent: 'director', step: 1 }));
    for (let i = 0; i < CHUNKS; i++) {
      deliver(env({ type: 'ai_chunk', agent: 'director', text: chunk(i) }));
      if (i % HELP_EVERY === HELP_EVERY - 1) deliver(env({ type: 'user_help_needed', agent: 'coding', requestId: `r${i}`, kind: 'authorization', question: `allow step ${i}?` }));
      if (i % PER_FRAME === PER_FRAME - 1) {
        now += 1000 / 30;
        const fire = timer as (() => void) | null;
        fire?.();
      }
    }
    const helps = app.helps.length;
    const chars = app.conv.entries.reduce((n, e) => n + (e.agent === 'director' ? e.text.length : 0), 0);
    await app.quit();
    return { frames, helps, chars };
  };
  const bare = (): number[] => {
    const io = term();
    const screen = blessed.screen({ input: io.input as never, output: io.output as never, terminal: 'xterm-256color', fullUnicode: true, warnings: false });
    const box = blessed.box({ parent: screen, width: 120, height: 40, scrollable: true });
    const frames: number[] = [];
    let text = '';
    for (let i = 0; i < CHUNKS; i++) {
      text += chunk(i);
      if (i % PER_FRAME === PER_FRAME - 1) {
        const t0 = performance.now();
        box.setContent(text);
        box.setScrollPerc(100);
        screen.render();
        frames.push(performance.now() - t0);
      }
    }
    screen.destroy();
    return frames;
  };
  const mine: number[] = [];
  const base: number[] = [];
  let helps = Infinity;
  let chars = 0;
  const expected = Array.from({ length: CHUNKS }, (_, i) => chunk(i)).join('').length;
  for (let run = 0; run < 4; run++) {
    const a = async () => {
      const r = await ours();
      if (run > 0) mine.push(...r.frames);
      helps = Math.min(helps, r.helps);
      chars = r.chars;
    };
    const b = () => (run > 0 ? base.push(...bare()) : bare());
    if (run % 2 === 0) await a().then(b);
    else {
      b();
      await a();
    }
  }
  const lost = CHUNKS / HELP_EVERY - helps;
  const p99 = (xs: number[]) => ({ ...stats(xs), median: stats(xs).p99 });
  process.stderr.write(`cli: flood frames ours p50 ${round(stats(mine).median)} p99 ${round(stats(mine).p99)} | bare blessed p50 ${round(stats(base).median)} p99 ${round(stats(base).p99)}; approvals ${helps}/${CHUNKS / HELP_EVERY}, text ${chars}/${expected} chars\n`);
  return [
    figure('tui_flood_frame_p50', 'ms', mine, '<= 3x a bare blessed box painting the same text', (v, b) => v <= 3 * (b ?? 0), { label: 'bare blessed box: setContent(accumulated text) + render, per frame', value: stats(base).median }),
    figure('tui_flood_frame_p99', 'ms', p99(mine), '<= 3x the bare blessed p99 (and <= 33 ms, one frame at 30 fps)', (v, b) => v <= 3 * (b ?? 0) && v <= 33, { label: 'bare blessed box: setContent + render (p99)', value: stats(base).p99 }),
    figure('tui_flood_critical_drops', 'events', [lost + (chars === expected ? 0 : 1)], '0 approval requests lost, every chunk shown', (v) => v === 0),
  ];
}

const suite: Suite = {
  name: 'cli',
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-cli-'));
    const model = await ScriptedModel.start();
    try {
      const p = prepare(dir, model);
      const ours: RunSample[] = [];
      const ref: RunSample[] = [];
      // one unmeasured pair warms the page cache for both; then pairs alternate which side goes first, and each
      // figure reports the pair with the median ratio (load drifts between pairs far more than within one)
      await runYagent(model, dir, p);
      await runReference(model, dir, p);
      for (let i = 0; i < RUNS; i++) {
        if (i % 2 === 0) {
          ours.push(await runYagent(model, dir, p));
          ref.push(await runReference(model, dir, p));
        } else {
          ref.push(await runReference(model, dir, p));
          ours.push(await runYagent(model, dir, p));
        }
      }
      const pick = (xs: RunSample[], k: 'startMs' | 'rssMb' | 'totalMs'): number[] => xs.map((s) => s[k]);
      // a run's gap is the median of its 20 steps; the figure is the median run (min/max across runs)
      const gapOf = (xs: RunSample[]): number[] => xs.map((s) => stats(s.gaps).median);
      process.stderr.write(`cli: yagent start ${pick(ours, 'startMs').map(round).join(' ')} | reference ${pick(ref, 'startMs').map(round).join(' ')}\n`);
      process.stderr.write(`cli: yagent gap ${gapOf(ours).map(round).join(' ')} | reference ${gapOf(ref).map(round).join(' ')}\n`);
      // load-robust beside the gap: CPU of every thread of the process per step (requests 2 → 21), ms
      const cpuOf = (xs: RunSample[]): string => xs.map((s) => round(s.cpuPerStepMs)).join(' ');
      process.stderr.write(`cli: CPU ms/step (whole process, every thread) yagent ${cpuOf(ours)} | reference ${cpuOf(ref)}\n`);
      const floor = await startFloors(model, dir, p, RUNS);
      process.stderr.write(`cli: start floor (spawn -> message, medians): reference ${round(floor.reference)} ms, bare worker ${round(floor.bareWorker)} ms = ${round(floor.bareWorker / floor.reference)}x, the Director's agent bundle booted ${round(floor.agentWorker)} ms = ${round(floor.agentWorker / floor.reference)}x; process CPU at that message: bare worker ${round(floor.bareWorkerCpu)} ms, agent bundle ${round(floor.agentWorkerCpu)} ms = ${round(floor.agentWorkerCpu / floor.bareWorkerCpu)}x\n`);
      return [
        pairedFigure('start_to_first_model_request', 'ms', pick(ours, 'startMs'), pick(ref, 'startMs'), '<= 1.6x the reference agent loop (issue 29)', (v, b) => v <= 1.6 * b, 'reference agent loop: spawn -> first model request (pair with the median ratio)'),
        pairedFigure('peak_rss_20_step_run', 'MB', pick(ours, 'rssMb'), pick(ref, 'rssMb'), '<= 1.4x the reference agent loop (issue 29)', (v, b) => v <= 1.4 * b, 'reference agent loop: peak RSS of the process, maxRSS at exit (pair with the median ratio)'),
        pairedFigure('gap_per_step', 'ms', gapOf(ours), gapOf(ref), '<= 1.6x the reference agent loop (issue 29)', (v, b) => v <= 1.6 * b, 'reference agent loop: tool-call reply written -> next request received, median of 20 steps (pair with the median ratio)'),
        ...(await tuiFigures()),
        ...(await floodFigures()),
        ...(await prefixFigures()),
        ...(await tuiTokenFigures()),
      ];
    } finally {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
