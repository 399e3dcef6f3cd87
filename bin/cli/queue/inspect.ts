// `yagent batch status --queue URL` and `yagent batch results --queue URL [--out FILE]`: what the queue holds.
import { writeFileSync } from 'node:fs';
import { Queue, type Job } from 'bullmq';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { toResult } from '../batch.js';
import { emptyOutcome } from '../../host/empty-outcome.js';
import type { Streams } from '../output.js';
import { closeQuietly, oneShot, unreachable } from './connect.js';
import type { QueueResult } from './run-job.js';
import type { QueueTarget } from './url.js';

/** A finished job's result line: the worker's result, or (a task that failed outside the task run: stalled too often,
 *  no workspace, a cancelled worker) its last result or one built from the queue's failure reason. */
export function resultOf(job: Job, state: 'completed' | 'failed'): QueueResult {
  if (state === 'completed') return job.returnvalue as QueueResult;
  const data = job.data as { id?: string; last_result?: QueueResult };
  const task = { id: data.id ?? String(job.id), line: (job.data as { line?: number }).line ?? 0, prompt: '', workspace: '', options: {} };
  const base: QueueResult = data.last_result ?? { ...toResult(task, emptyOutcome(''), EXIT.error, Date.now()), diff: null, worker: job.processedBy ?? '', attempt: job.attemptsMade };
  return { ...base, status: 'error', exit_code: EXIT.error, error: job.failedReason, attempt: job.attemptsMade, finished_at: new Date(job.finishedOn ?? Date.now()).toISOString() };
}

async function finishedJobs(queue: Queue): Promise<{ job: Job; state: 'completed' | 'failed' }[]> {
  const completed = (await queue.getJobs(['completed'])) as Job[];
  const failed = (await queue.getJobs(['failed'])) as Job[];
  const all = [...completed.map((job) => ({ job, state: 'completed' as const })), ...failed.map((job) => ({ job, state: 'failed' as const }))];
  const line = (j: Job): number => (j.data as { line?: number }).line ?? 0;
  return all.sort((a, b) => line(a.job) - line(b.job) || String(a.job.id).localeCompare(String(b.job.id)));
}

/** Every finished task's result line (only `ids` when given) into `out`, replacing it. */
export async function writeResults(queue: Queue, out: string, ids?: Set<string>): Promise<number> {
  const rows = (await finishedJobs(queue)).filter((r) => ids === undefined || ids.has(String(r.job.id)));
  writeFileSync(out, rows.map((r) => `${JSON.stringify(resultOf(r.job, r.state))}\n`).join(''));
  return rows.length;
}

async function withQueue<T>(target: QueueTarget, fn: (q: Queue) => Promise<T>): Promise<T> {
  const queue = new Queue(target.name, { connection: oneShot(target) });
  queue.on('error', () => {}); // a connection error fails the command below, with the URL (masked) in its message
  try {
    return await fn(queue);
  } catch (err) {
    throw unreachable(target, err);
  } finally {
    await closeQuietly(queue);
  }
}

export async function runResults(target: QueueTarget, out: string | undefined, io: Streams): Promise<ExitCode> {
  return withQueue(target, async (queue) => {
    if (out !== undefined) {
      const n = await writeResults(queue, out);
      io.stderr(`[batch] ${n} result(s) → ${out}\n`);
      return EXIT.ok;
    }
    for (const r of await finishedJobs(queue)) io.stdout(`${JSON.stringify(resultOf(r.job, r.state))}\n`);
    return EXIT.ok;
  });
}

export async function runStatus(target: QueueTarget, json: boolean, io: Streams): Promise<ExitCode> {
  return withQueue(target, async (queue) => {
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'completed', 'failed');
    const finished = await finishedJobs(queue);
    const ok = finished.filter((r) => r.state === 'completed' && (r.job.returnvalue as { status?: string } | null)?.status === 'ok').length;
    // BullMQ names a worker's connection PREFIX:QUEUE64:w:NAME
    const workers = (await queue.getWorkers()).map((w) => {
      const raw = w['rawname'] ?? '';
      return raw.includes(':w:') ? raw.slice(raw.lastIndexOf(':w:') + 3) : (w['addr'] ?? '?');
    });
    const status = {
      queue: queue.name,
      url: target.display,
      pending: (counts['waiting'] ?? 0) + (counts['prioritized'] ?? 0),
      running: counts['active'] ?? 0,
      retrying: counts['delayed'] ?? 0,
      ok,
      failed: finished.length - ok,
      workers,
    };
    if (json) io.stdout(`${JSON.stringify(status)}\n`);
    else {
      const total = status.pending + status.running + status.retrying + finished.length;
      io.stdout(`queue ${status.queue} on ${status.url}: ${total} task(s) · ${status.pending} pending · ${status.running} running · ${status.retrying} waiting to retry · ${finished.length} done (${ok} ok, ${status.failed} failed)\n`);
      io.stdout(`workers (${workers.length}): ${workers.join(', ') || '(none connected)'}\n`);
    }
    return EXIT.ok;
  });
}
