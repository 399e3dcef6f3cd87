// Test fixture CPU job for the piscina pool: a pure function of its input.
import { threadId as workerThreadId } from 'node:worker_threads';
export default function sumSquares(input: { n: number }): number {
  let s = 0;
  for (let i = 1; i <= input.n; i++) s += i * i;
  return s;
}

/** Which pool thread ran the job: a stopped thread's successor has another id. */
export function threadId(): number {
  return workerThreadId;
}

/** Never returns on its own: only stopping its thread ends it. */
export function spinForever(): number {
  let x = 0;
  for (;;) x = (x + 1) % 1_000_003;
}

/** Ends its pool thread (a crash of the thread in the middle of a job). */
export function exitThread(): number {
  process.exit(1);
}
