// Suite `cli`: `yagent -p` beside the reference agent loop (bench/reference-agent.mjs), both separate
// processes on the same loopback fake model with the same 20-step script, runs alternating A/B.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pairedFigure, round, stats, type Figure, type Suite } from './lib.js';
import { prepare, runReference, runYagent, ScriptedModel, type RunSample } from './side-by-side.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

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
      ];
    } finally {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
