// Test fixture CPU job for the piscina pool: a pure function of its input.
import { readFileSync } from 'node:fs';
import { threadId as workerThreadId } from 'node:worker_threads';
import { kernelThreadId } from '../thread-priority.js';
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

/** The pool thread's own Linux nice (field 19 of /proc/self/task/<tid>/stat), null where there is none. */
export function threadNice(): number | null {
  const tid = kernelThreadId();
  if (tid === undefined) return null;
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}
