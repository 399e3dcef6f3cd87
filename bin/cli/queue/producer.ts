// `yagent batch TASKS.jsonl --queue URL [--detach] [--attempts N]`: enqueue (the task id is the job id, so a task
// already queued or done is never queued twice), then follow with the local batch's progress line.
import { Queue } from 'bullmq';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Streams } from '../output.js';
import type { BatchRun } from '../batch.js';
import { closeQuietly, longLived, oneShot, unreachable } from './connect.js';
import { follow, lastEventId, stateOf, type TaskState } from './follow.js';
import { readQueueTasks } from './payload.js';
import { writeResults } from './inspect.js';
import type { QueueTarget } from './url.js';

export interface QueueBatchRun {
  file: string;
  target: QueueTarget;
  detach: boolean;
  attempts: number;
  /** First retry after this many ms, doubling each time (BullMQ's exponential backoff). */
  backoffMs: number;
  /** When following: the batch's results are written here at the end. */
  out: string | undefined;
  defaults: BatchRun['defaults'];
  io: Streams;
  isTty: boolean;
}

export async function runQueueBatch(run: QueueBatchRun): Promise<ExitCode> {
  const jobs = readQueueTasks(run.file, run.defaults);
  // enqueueing gives up after ~5 s without Redis (a clear error); following waits out outages (its own connection)
  const queue = new Queue(run.target.name, { connection: oneShot(run.target) });
  queue.on('error', () => {}); // connection errors surface as the failing command's rejection below
  let fromId: string;
  const before = new Map<string, TaskState>();
  try {
    try {
      fromId = run.detach ? '$' : await lastEventId(queue, run.target);
      // one round trip for all the states (ioredis sends them back to back); a result is read only for finished ones
      const states = await Promise.all(jobs.map((j) => queue.getJobState(j.id)));
      for (const [i, j] of jobs.entries()) {
        const st = states[i] ?? 'unknown';
        if (st === 'unknown') continue;
        before.set(j.id, st === 'completed' ? stateOf(st, (await queue.getJob(j.id))?.returnvalue) : stateOf(st, null));
      }
      const fresh = jobs.filter((j) => !before.has(j.id));
      // addBulk with job ids is idempotent in Redis too: a racing producer's copy is not added again
      await queue.addBulk(fresh.map((data) => ({ name: 'task', data, opts: { jobId: data.id, attempts: run.attempts, backoff: { type: 'exponential', delay: run.backoffMs }, removeOnComplete: false, removeOnFail: false } })));
      run.io.stderr(`[batch] queued ${fresh.length} new task(s) on ${run.target.display} (queue ${run.target.name}); ${jobs.length - fresh.length} already queued or done\n`);
    } catch (err) {
      throw unreachable(run.target, err);
    }
  } finally {
    await closeQuietly(queue);
  }
  if (run.detach) {
    run.io.stderr(`[batch] detached: follow with \`yagent batch status --queue URL\`, collect with \`yagent batch results --queue URL\`\n`);
    return EXIT.ok;
  }
  return followBatch(run, fromId, before, jobs.map((j) => j.id));
}

async function followBatch(run: QueueBatchRun, fromId: string, before: Map<string, TaskState>, ids: string[]): Promise<ExitCode> {
  const skipped = ids.filter((id) => before.get(id) === 'ok' || before.get(id) === 'failed');
  const states = new Map<string, TaskState>(ids.filter((id) => !skipped.includes(id)).map((id) => [id, before.get(id) ?? 'pending']));
  const total = states.size;
  let stopped = false;
  const f = follow(run.target, fromId, states, () => progress(), (msg) => run.io.stderr(msg === null ? '[batch] queue reachable again\n' : `\n[batch] queue unreachable (${msg}): waiting for it\n`));
  const progress = (): void => {
    const c = f.counts();
    const line = `[batch] ${c.ok + c.failed}/${total} done · ${c.running} running · ${c.failed} failed · ${c.pending} pending${skipped.length > 0 ? ` · ${skipped.length} skipped (already done)` : ''}`;
    run.io.stderr(run.isTty ? `\r${line}\x1b[K` : `${line}\n`);
  };
  let stop = (): void => {};
  const interrupted = new Promise<void>((r) => (stop = r));
  // Ctrl-C only stops following: the workers keep the tasks
  const onSignal = (): void => {
    stopped = true;
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  progress();
  try {
    await Promise.race([f.done, interrupted]);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await f.close();
  }
  if (run.isTty) run.io.stderr('\n');
  const c = f.counts();
  if (stopped) {
    run.io.stderr(`[batch] stopped following: ${c.ok + c.failed}/${total} done; the rest stay queued for the workers (\`yagent batch status --queue URL\`)\n`);
    return EXIT.cancelled;
  }
  const where = run.out !== undefined ? run.out : '`yagent batch results --queue URL`';
  if (run.out !== undefined) {
    const out = run.out;
    const queue = new Queue(run.target.name, { connection: longLived(run.target) });
    try {
      await writeResults(queue, out, new Set(ids));
    } finally {
      await queue.close();
    }
  }
  run.io.stderr(`[batch] finished: ${c.ok} ok, ${c.failed} failed${skipped.length > 0 ? `, ${skipped.length} skipped` : ''} → ${where}\n`);
  return c.failed > 0 ? EXIT.error : EXIT.ok;
}
