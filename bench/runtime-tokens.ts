// Figures for suite `runtime`: token counts on the process's CPU pool (through the brokered cpu port, as an
// agent worker reaches it) beside counting in place with a loaded encoder (issue 11).
import { performance } from 'node:perf_hooks';
import { Runtime } from '../src/runtime/runtime.js';
import { CPU_SERVICE, type CpuService } from '../src/runtime/cpu-service.js';
import { inPlaceBackend, poolBackend } from '../src/actors/llm/tokens.js';
import { figure, pairedFigure, stats, type Figure } from './lib.js';

const RUNS = 7;
const SMALL = 'Read src/index.ts and tell me which function exports the CLI entry point, please.';
/** A long history: 200 messages of ~2 KB of code-like text (~400 KB). */
const HISTORY = Array.from({ length: 200 }, (_, i) => `// file ${i}\n` + `export function f${i}(a: number, b: string): string { return b.repeat(a) + "${i}"; }\n`.repeat(24));

/** A run with no break and no repeat (pseudo-random letters): one pre-tokenizer piece of `n` characters. */
function unbrokenRun(n: number, seed: number): string {
  let x = seed;
  return Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'[(x = (x * 1103515245 + 12345) & 0x7fffffff) % 52]).join('');
}

/** Event-loop-active ms of this thread while fn runs: what counting costs the caller's thread. */
async function busyMs(fn: () => Promise<unknown>): Promise<{ busy: number; wall: number }> {
  const e0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  return { busy: performance.eventLoopUtilization(e0).active, wall };
}

export async function tokenFigures(): Promise<Figure[]> {
  const rt = await Runtime.start({ spares: 0 });
  const pool = poolBackend(rt.connect<CpuService>(CPU_SERVICE));
  const t0 = performance.now();
  await pool.warm('cl100k_base');
  const loadMs = performance.now() - t0;
  await inPlaceBackend.warm('cl100k_base');
  const small = { pool: [] as number[], here: [] as number[] };
  const long = { pool: [] as number[], here: [] as number[], poolWall: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    for (const [k, b] of [['pool', pool], ['here', inPlaceBackend]] as const) {
      const s: number[] = [];
      for (let i = 0; i < 200; i++) {
        const a = performance.now();
        await b.count('cl100k_base', [SMALL]);
        s.push((performance.now() - a) * 1000);
      }
      small[k].push(stats(s).median);
      const m = await busyMs(() => b.count('cl100k_base', HISTORY));
      long[k].push(m.busy);
      if (k === 'pool') long.poolWall.push(m.wall);
    }
  }
  // linear on long unbroken runs (issue 22): µs per character at 64 K against the same count at 8 K, alternating
  const perChar = { long: [] as number[], short: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    for (const [k, n] of (r % 2 === 0 ? [['short', 8_000], ['long', 64_000]] : [['long', 64_000], ['short', 8_000]]) as ['long' | 'short', number][]) {
      const text = unbrokenRun(n, r + 1);
      const a = performance.now();
      await pool.count('cl100k_base', [text]);
      perChar[k].push(((performance.now() - a) * 1000) / n);
    }
  }
  await rt.shutdown();
  const med = (xs: number[]): number => stats(xs).median;
  return [
    // In place needs the ranks in every agent worker: 1,000 counts over the pool must cost less than that load.
    figure('tokens_small_count_p50', 'us', small.pool, `1000 x value <= encoder load in place (${Math.round(loadMs)} ms) + 1000 x in place`, (v, b) => 1000 * v <= loadMs * 1000 + 1000 * (b ?? 0), {
      label: 'in place, encoder already loaded in the calling thread',
      value: med(small.here),
    }),
    figure('tokens_long_history_caller_busy', 'ms', long.pool, '<= 0.1x in place (the agent thread stays free)', (v, b) => v <= 0.1 * (b ?? 0), {
      label: `in place, 200 messages / ${Math.round(HISTORY.join('').length / 1024)} KB (pool wall: ${med(long.poolWall).toFixed(1)} ms)`,
      value: med(long.here),
    }),
    pairedFigure('tokens_unbroken_run_64k_per_char', 'us', perChar.long, perChar.short, '<= 1.5x (linear: the merge was cubic in a piece, 32 K of one character took 75 s)', (v, b) => v <= 1.5 * b, 'the same count per character on an 8 K run'),
  ];
}
