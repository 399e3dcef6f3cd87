// YAGENT_TRACE=1: phase timings of a client run on stderr (start-up and shutdown costs made visible).
const on = process.env.YAGENT_TRACE === '1';
const t0 = performance.now();

export function trace(label: string): void {
  if (on) process.stderr.write(`[trace] ${(performance.now() - t0).toFixed(1)} ms ${label}\n`);
}
