// Suite `cli`: `yagent -p` beside the reference agent loop (bench/reference-agent.mjs), both separate
// processes on the same loopback fake model with the same 20-step script, runs alternating A/B.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Blessed from 'blessed';
import { figure, pairedFigure, round, stats, type Figure, type Suite } from './lib.js';
import { prepare, runReference, runYagent, ScriptedModel, type RunSample } from './side-by-side.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

/** TUI: start → first frame and keystroke → echo (p50/p99), beside a bare blessed screen doing the same paint
 *  through the same key parser; both on in-memory 120x40 terminals, samples alternating. */
async function tuiFigures(): Promise<Figure[]> {
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
    const box = blessed.box({ parent: screen, width: 120, height: 40 });
    let text = '';
    screen.on('keypress', (ch: string | undefined) => (box.setContent((text += ch ?? '')), screen.render()));
    screen.render();
    return { close: () => screen.destroy() };
  };
  const ours = (io: ReturnType<typeof term>) => {
    const app = new TuiApp({ backend: idle, bindings: DEFAULT_BINDINGS, io });
    return { close: () => app.quit() };
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
      for (let k = 0; k < 60; k++) keys[side].push(await echo(io));
      await h.close();
    }
  }
  // the first pair warmed the module cache: drop it
  const warm = (xs: number[]) => xs.slice(1);
  const p99 = (xs: number[]) => ({ ...stats(xs), median: stats(xs).p99 });
  process.stderr.write(`cli: tui first frame ${warm(first.ours).map(round).join(' ')} | bare blessed ${warm(first.bare).map(round).join(' ')}\n`);
  return [
    figure('tui_start_to_first_frame', 'ms', warm(first.ours), '<= 4x a bare blessed screen (and <= 300 ms)', (v, b) => v <= 4 * (b ?? 0) && v <= 300, { label: 'bare blessed screen: create + first render', value: stats(warm(first.bare)).median }),
    figure('tui_keystroke_echo_p50', 'ms', keys.ours, '<= 3x a bare blessed echo', (v, b) => v <= 3 * (b ?? 0), { label: 'bare blessed: keypress -> setContent + render', value: stats(keys.bare).median }),
    figure('tui_keystroke_echo_p99', 'ms', p99(keys.ours), '<= 3x a bare blessed echo p99 (and <= 16 ms)', (v, b) => v <= 3 * (b ?? 0) && v <= 16, { label: 'bare blessed: keypress -> setContent + render (p99)', value: stats(keys.bare).p99 }),
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
      return [
        pairedFigure('start_to_first_model_request', 'ms', pick(ours, 'startMs'), pick(ref, 'startMs'), '<= 2.5x the reference agent loop', (v, b) => v <= 2.5 * b, 'reference agent loop: spawn -> first model request (pair with the median ratio)'),
        pairedFigure('peak_rss_20_step_run', 'MB', pick(ours, 'rssMb'), pick(ref, 'rssMb'), '<= 1.8x the reference agent loop', (v, b) => v <= 1.8 * b, 'reference agent loop: peak RSS of the process, maxRSS at exit (pair with the median ratio)'),
        pairedFigure('gap_per_step', 'ms', gapOf(ours), gapOf(ref), '<= 3x the reference agent loop', (v, b) => v <= 3 * b, 'reference agent loop: tool-call reply written -> next request received, median of 20 steps (pair with the median ratio)'),
        ...(await tuiFigures()),
      ];
    } finally {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
