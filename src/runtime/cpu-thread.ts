// A CPU pool thread's default module when a screen draws in the process (`RuntimeOptions.workerNice`): piscina loads
// it as the thread starts, and the thread lowers its own priority below the main thread's as actor workers do
// (thread-priority.ts). Jobs always name their own module; this one's export is never a job.
import { workerData } from 'node:worker_threads';
import { lowerThisThread } from './thread-priority.js';

const nice = (workerData as { nice?: unknown } | null | undefined)?.nice;
if (typeof nice === 'number') lowerThisThread(nice);

export default function notAJob(): never {
  throw new Error('cpu-thread.js is a pool thread entry, not a job');
}
