// Shared benchmark harness: warm up, repeat, median/min/max, and the one-JSON-line contract.
export interface Figure {
  name: string;
  value: number;
  unit: string;
  baseline?: string;
  baseline_value?: number;
  ratio?: number;
  target: string;
  met: boolean;
  min?: number;
  max?: number;
}

export interface Suite {
  name: string;
  run(): Promise<Figure[]>;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  p99: number;
}

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return { median: at(0.5), min: s[0] ?? Number.NaN, max: s[s.length - 1] ?? Number.NaN, p99: at(0.99) };
}

/** Runs fn `warmup` times unmeasured, then `runs` times; returns the samples fn reported. */
export async function repeat(runs: number, fn: () => Promise<number>, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(await fn());
  return out;
}

export function figure(
  name: string,
  unit: string,
  samples: number[] | Stats,
  target: string,
  met: (value: number, baselineValue?: number) => boolean,
  baseline?: { label: string; value: number },
): Figure {
  const st = Array.isArray(samples) ? stats(samples) : samples;
  const value = round(st.median);
  const f: Figure = { name, value, unit, target, met: false, min: round(st.min), max: round(st.max) };
  if (baseline) {
    f.baseline = baseline.label;
    f.baseline_value = round(baseline.value);
    f.ratio = baseline.value > 0 ? round(st.median / baseline.value) : undefined;
  }
  f.met = met(st.median, baseline?.value);
  return f;
}

export function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

export const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * A figure from paired samples (ours[i] and base[i] taken back to back): the reported pair is the one with
 * the median ratio, so value / baseline_value is that median ratio and a burst of load on a shared machine
 * cannot pick one side's sample apart from the other's. min/max are over our samples.
 */
export function pairedFigure(
  name: string,
  unit: string,
  ours: number[],
  base: number[],
  target: string,
  met: (value: number, baselineValue: number) => boolean,
  label: string,
): Figure {
  const order = ours.map((_, i) => i).sort((a, b) => (ours[a] ?? 0) / (base[a] ?? 1) - (ours[b] ?? 0) / (base[b] ?? 1));
  const mid = order[Math.floor(order.length / 2)] ?? 0;
  const v = ours[mid] ?? Number.NaN;
  const b = base[mid] ?? Number.NaN;
  const st = stats(ours);
  return figure(name, unit, { ...st, median: v }, target, () => met(v, b), { label, value: b });
}

/** `runs` pairs of samples of a and b, back to back, order swapped each pair, after one unmeasured pair. */
export async function alternate(runs: number, a: () => Promise<number>, b: () => Promise<number>): Promise<[number[], number[]]> {
  await a();
  await b();
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return [as, bs];
}
