// `yagent worker --queue URL [--concurrency N]`: takes queued tasks and runs each as a local batch task runs.
// Faults are BullMQ's: a killed worker's task comes back through stalled-job recovery, a failed one is retried with
// backoff up to the batch's --attempts, Redis going away pauses the worker until it reconnects. SIGTERM drains.
// BullMQ's Worker is a Redis consumer on this thread (no thread of its own); its run() is awaited below, never detached
import { Worker as QueueConsumer, type Job } from 'bullmq';
import type { Envelope } from '../../../src/runtime/protocol/index.js';
import type { Redactor } from '../../../src/runtime/redact.js';
import type { Host } from '../../host/types.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Streams } from '../output.js';
import { onInterrupt } from '../signals.js';
import { longLived } from './connect.js';
import { JobDataSchema } from './payload.js';
import { runJob, type JobContext, type QueueResult } from './run-job.js';
import type { QueueTarget } from './url.js';
import { workerId, WorkspaceRoot } from './workspace.js';

export interface WorkerRun {
  target: QueueTarget;
  concurrency: number;
  /** BullMQ's lock and stalled-check periods (ms): defaults 30 s each; tests and fast fail-over lower them. */
  lockMs: number | undefined;
  stalledMs: number | undefined;
  forceQuit: boolean;
  io: Streams;
  redactor: Redactor;
}

/** Times a task may come back from a dead worker before it is failed as stalled (machines do go away). */
const MAX_STALLED = 3;

export async function runWorker(host: Host, run: WorkerRun): Promise<ExitCode> {
  const root = new WorkspaceRoot();
  const ctx: JobContext = { host, root, needsApproval: new Map(), running: new Set(), redactor: run.redactor };
  const me = workerId();
  const say = (line: string): void => run.io.stderr(`[worker ${me}] ${line}\n`);
  // nobody can answer a queued task: deny and remember, as a local batch does
  const unsubscribe = host.subscribe({}, (env: Envelope) => {
    const p = env.payload;
    if (p.type !== 'user_help_needed') return;
    ctx.needsApproval.set(env.taskId, [...(ctx.needsApproval.get(env.taskId) ?? []), `${p.agent}: ${p.question}`]);
    host.respond(env.taskId, { requestId: p.requestId, approved: false, answer: 'no user can answer a queued task: run the batch with -y for this task', scope: 'once' });
  });

  // jobs this worker runs, until BullMQ has recorded their end (its 'completed' / 'failed' event): the drain waits for them
  const inFlight = new Set<string>();
  let onIdle = (): void => {};
  const ended = (job: Job | undefined): void => {
    if (job?.id !== undefined && inFlight.delete(job.id) && inFlight.size === 0) onIdle();
  };
  const processor = async (job: Job): Promise<QueueResult> => {
    if (job.id !== undefined) inFlight.add(job.id);
    for (const dead of root.sweepDead()) say(`removed the workspace of a dead worker: ${dead}`);
    const data = JobDataSchema.parse(job.data);
    const attempt = Math.max(1, job.attemptsStarted);
    say(`${data.id}: started (attempt ${attempt}/${job.opts.attempts ?? 1})`);
    const { result, cancelled } = await runJob(ctx, data, attempt);
    if (cancelled) throw new Error(`cancelled on worker ${me}: it stopped before the task finished`);
    say(`${data.id}: ${result.status}${result.error !== undefined ? ` (${result.error})` : ''}`);
    if (result.status === 'error') {
      // retried with backoff while attempts remain; the last failure's full result stays with the job
      await job.updateData({ ...data, last_result: result });
      throw new Error(result.error ?? `task ${data.id} failed`);
    }
    return result;
  };

  const worker = new QueueConsumer(run.target.name, processor, {
    connection: longLived(run.target),
    concurrency: run.concurrency,
    name: me,
    autorun: false,
    maxStalledCount: MAX_STALLED,
    ...(run.lockMs !== undefined ? { lockDuration: run.lockMs } : {}),
    ...(run.stalledMs !== undefined ? { stalledInterval: run.stalledMs } : {}),
  });
  let outage: string | null = null;
  worker.on('error', (err) => {
    // one line per outage: ioredis keeps reconnecting, BullMQ resumes taking tasks when it is back
    if (outage !== null) return;
    outage = err.message;
    say(`queue unreachable (${err.message}): waiting for it to come back`);
  });
  const reachable = (): void => {
    if (outage !== null) say('queue reachable again');
    outage = null;
  };
  worker.on('active', reachable);
  worker.on('completed', (job) => (reachable(), ended(job)));
  worker.on('failed', (job) => (reachable(), ended(job)));

  let stopRequested = (): void => {};
  const stopped = new Promise<void>((resolve) => (stopRequested = resolve));
  const off = onInterrupt(run.forceQuit, () => {
    say(`draining: finishing ${ctx.running.size} running task(s), taking no new one (signal again to quit at once)`);
    stopRequested();
  });
  say(`taking tasks from ${run.target.display} (queue ${run.target.name}, concurrency ${run.concurrency})`);
  const running = worker.run();
  try {
    await Promise.race([running, stopped]);
    await worker.pause(true); // takes no new task; the running ones finish and are recorded
    if (inFlight.size > 0) await new Promise<void>((resolve) => (onIdle = resolve));
  } finally {
    off();
    if (!(await closeWithin(worker, CLOSE_MS))) say(`the queue connection did not close within ${CLOSE_MS / 1000} s; stopping anyway`);
    unsubscribe();
    root.remove();
  }
  say('stopped');
  return EXIT.ok;
}

const CLOSE_MS = 5000;

/** BullMQ's close can wait forever on a connection that is reconnecting (upstream issue 4656): bounded, and forced
 *  (no wait for running jobs: the drain above waited for ours already). */
async function closeWithin(worker: QueueConsumer, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([worker.close(true).then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
