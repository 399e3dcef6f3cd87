// Suite `wire`: the same 20-step `yagent -p` run (bench/side-by-side.ts) against the fake model speaking as llama-server
// does — it closes the connection after every streamed answer although it announced keep-alive — and against the
// same fake keeping its connections, runs alternating A/B. The close must cost no retry and no more than 1.2× the
// gap per step (issue 23 item 1: before the transport's re-send it cost a 1 s backoff on about every other step).
// And a 60-step run at an 8k window reports its summary calls (item 9, bench/small-window.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { figure, pairedFigure, round, stats, type Figure, type Suite } from './lib.js';
import { prepare, runYagent, ScriptedModel, type RunSample } from './side-by-side.js';
import { SMALL_WINDOW, SMALL_WINDOW_STEPS, smallWindowRun } from './small-window.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const suite: Suite = {
  name: 'wire',
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-wire-'));
    const model = await ScriptedModel.start();
    try {
      const p = prepare(dir, model);
      const closes: RunSample[] = [];
      const keeps: RunSample[] = [];
      let resets = 0;
      const run = async (flavour: 'llama.cpp' | 'openai', into: RunSample[] | null): Promise<void> => {
        model.fake.flavour = flavour;
        const before = model.fake.staleSocketResets;
        const s = await runYagent(model, dir, p);
        if (flavour === 'llama.cpp' && into !== null) resets += model.fake.staleSocketResets - before;
        into?.push(s);
      };
      // one unmeasured pair warms the page cache; then pairs alternate which side goes first
      await run('llama.cpp', null);
      await run('openai', null);
      for (let i = 0; i < RUNS; i++) {
        if (i % 2 === 0) {
          await run('llama.cpp', closes);
          await run('openai', keeps);
        } else {
          await run('openai', keeps);
          await run('llama.cpp', closes);
        }
      }
      const gapOf = (xs: RunSample[]): number[] => xs.map((s) => stats(s.gaps).median);
      const retries = closes.reduce((n, s) => n + s.retries, 0);
      process.stderr.write(`wire: gap closes ${gapOf(closes).map(round).join(' ')} | keeps ${gapOf(keeps).map(round).join(' ')}; retries ${retries}, connections the server dropped under a request ${resets} in ${RUNS} runs\n`);
      // the same kind of run at an 8k window: the summary calls it makes (the script is fixed, so one run says it)
      const small = await smallWindowRun(join(dir, 'small'));
      process.stderr.write(`wire: ${small.steps} steps at a ${SMALL_WINDOW}-token window: ${small.summaries} summary calls (${Math.round(small.ms)} ms)\n`);
      return [
        figure('small_window_summary_calls_60_steps', 'calls', [small.summaries], `<= ${SMALL_WINDOW_STEPS / 15} (one per ~15 steps of ${SMALL_WINDOW_STEPS})`, (v) => v <= SMALL_WINDOW_STEPS / 15),
        pairedFigure('close_after_stream_gap_per_step', 'ms', gapOf(closes), gapOf(keeps), '<= 1.2x the same run against a server that keeps its connections', (v, b) => v <= 1.2 * b, 'the same 20-step run, the fake keeping its connections: tool-call reply written -> next request received, median of 20 steps (pair with the median ratio)'),
        figure('close_after_stream_retries', 'retries', [retries], '0 (no retry line in any run)', (v) => v === 0),
      ];
    } finally {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
