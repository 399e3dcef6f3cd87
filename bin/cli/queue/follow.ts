// Following a queued batch: each task's state from the queue's event stream (read from the id taken before the
// first look, so no event is missed; BullMQ resumes from its last id after Redis comes back), one progress line per
// change, the same line as a local batch.
import { QueueEvents, type Queue } from 'bullmq';
import type { QueueTarget } from './url.js';
import { Redis } from 'ioredis';
import { longLived, oneShot } from './connect.js';

export type TaskState = 'pending' | 'running' | 'ok' | 'failed';

/** A job's state as the follower counts it: a completed task whose result is not ok counts as failed. */
export function stateOf(jobState: string, returnvalue: unknown): TaskState {
  if (jobState === 'completed') return (returnvalue as { status?: unknown } | null)?.status === 'ok' ? 'ok' : 'failed';
  if (jobState === 'failed') return 'failed';
  if (jobState === 'active') return 'running';
  return 'pending';
}

const isFinal = (s: TaskState | undefined): boolean => s === 'ok' || s === 'failed';

export interface Follow {
  /** Resolves once every task is ok or failed. */
  done: Promise<void>;
  close(): Promise<void>;
  counts(): Record<TaskState, number>;
}

/** The stream's newest event id ('0-0' when empty): what the follower reads from. */
export async function lastEventId(queue: Queue, target: QueueTarget): Promise<string> {
  const client = new Redis(oneShot(target));
  client.on('error', () => {}); // the command below fails with it, and the caller reports that
  try {
    const last = await client.xrevrange(queue.keys['events'] ?? `bull:${queue.name}:events`, '+', '-', 'COUNT', 1);
    return last[0]?.[0] ?? '0-0';
  } finally {
    client.disconnect();
  }
}

/** Tracks `states` (task id → state, already filled from the queue) from `fromId` on; `onChange` after each change. */
export function follow(target: QueueTarget, fromId: string, states: Map<string, TaskState>, onChange: () => void, onOutage: (msg: string | null) => void): Follow {
  const events = new QueueEvents(target.name, { connection: longLived(target), lastEventId: fromId });
  let resolveDone = (): void => {};
  const done = new Promise<void>((r) => (resolveDone = r));
  const check = (): void => {
    if ([...states.values()].every(isFinal)) resolveDone();
  };
  let outage = false;
  const set = (id: string, s: TaskState): void => {
    if (outage) onOutage(null);
    outage = false;
    const now = states.get(id);
    // only our tasks; a finished task stays finished (a late 'active' of a stale lock changes nothing)
    if (now === undefined || now === s || isFinal(now)) return;
    states.set(id, s);
    onChange();
    check();
  };
  events.on('error', (err) => {
    if (!outage) onOutage(err.message);
    outage = true;
  });
  events.on('active', ({ jobId }) => set(jobId, 'running'));
  events.on('waiting', ({ jobId }) => set(jobId, 'pending'));
  events.on('delayed', ({ jobId }) => set(jobId, 'pending'));
  events.on('stalled', ({ jobId }) => set(jobId, 'pending'));
  events.on('completed', ({ jobId, returnvalue }) => set(jobId, stateOf('completed', returnvalue)));
  events.on('failed', ({ jobId }) => set(jobId, 'failed'));
  check();
  return {
    done,
    close: () => events.close(),
    counts: () => {
      const c: Record<TaskState, number> = { pending: 0, running: 0, ok: 0, failed: 0 };
      for (const s of states.values()) c[s] += 1;
      return c;
    },
  };
}
