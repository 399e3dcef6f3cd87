// One ordered event log per supervisor: per-task replay from a seq, fan-out in one order, pending approvals.
import type { Envelope, EventOf } from '../../src/runtime/protocol/index.js';

export const TASK_LOG_CAPACITY = 20_000;
/** Ended tasks whose events stay replayable; an older one's log is dropped (its rollout still has everything:
 *  `attach timeline`), so a long-running `yagent serve` does not keep every finished task's events. */
export const ENDED_LOGS_KEPT = 32;

export interface PendingApproval {
  taskId: string;
  delegationId: string | null;
  source: string;
  seq: number;
  request: EventOf<'user_help_needed'>;
}

type Listener = (env: Envelope) => void;

export class EventLog {
  private readonly byTask = new Map<string, Envelope[]>();
  private readonly listeners = new Set<{ taskId: string | undefined; fn: Listener }>();
  private readonly pending = new Map<string, PendingApproval>();
  /** Each task's latest top-level conversation_result text (its task_end repeats it; the stream sends it once). */
  private readonly results = new Map<string, string>();
  /** Every task that ended (ids only), and the ones whose log is still kept, oldest first. */
  private readonly endedIds = new Set<string>();
  private readonly endedKept: string[] = [];

  constructor(private readonly capacity = TASK_LOG_CAPACITY) {}

  /** Called by the single dispatcher consumer: every client sees envelopes in this one order. */
  append(env: Envelope): void {
    let log = this.byTask.get(env.taskId);
    if (!log) this.byTask.set(env.taskId, (log = []));
    log.push(env);
    if (log.length > this.capacity) log.splice(0, log.length - this.capacity);
    this.track(env);
    for (const l of [...this.listeners]) if (l.taskId === undefined || l.taskId === env.taskId) l.fn(env);
  }

  private track(env: Envelope): void {
    const p = env.payload;
    if (p.type === 'user_help_needed') {
      this.pending.set(p.requestId, { taskId: env.taskId, delegationId: env.delegationId, source: env.source, seq: env.seq, request: p });
    } else if (p.type === 'user_help_response' || p.type === 'user_help_withdrawn') {
      this.pending.delete(p.requestId);
    } else if (p.type === 'conversation_result' && env.delegationId === null) {
      this.results.set(env.taskId, p.text);
    } else if (p.type === 'task_end') {
      for (const [id, a] of this.pending) if (a.taskId === env.taskId) this.pending.delete(id);
      if (!this.endedIds.has(env.taskId)) {
        this.endedIds.add(env.taskId);
        this.endedKept.push(env.taskId);
      }
      while (this.endedKept.length > ENDED_LOGS_KEPT) {
        const old = this.endedKept.shift()!;
        this.byTask.delete(old);
        this.results.delete(old);
      }
    }
  }

  /** Retained envelopes of a task (or every task) with seq > since, in append order. */
  replay(taskId: string | undefined, since: number): Envelope[] {
    if (taskId !== undefined) return (this.byTask.get(taskId) ?? []).filter((e) => e.seq > since);
    return [...this.byTask.values()].flat().filter((e) => e.seq > since).sort((a, b) => a.seq - b.seq);
  }

  /** Replays then follows with no gap: registration and replay happen in the same synchronous turn. */
  follow(taskId: string | undefined, since: number, fn: Listener): () => void {
    for (const env of this.replay(taskId, since)) fn(env);
    return this.subscribe(taskId, fn);
  }

  /** Every envelope appended from now on (of one task, or all); returns the unsubscribe. */
  subscribe(taskId: string | undefined, fn: Listener): () => void {
    const entry = { taskId, fn };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  /** The text of the task's latest top-level conversation_result, if any. */
  resultText(taskId: string): string | undefined {
    return this.results.get(taskId);
  }

  approvals(taskId?: string): PendingApproval[] {
    return [...this.pending.values()].filter((a) => taskId === undefined || a.taskId === taskId).sort((a, b) => a.seq - b.seq);
  }

  approval(requestId: string): PendingApproval | undefined {
    return this.pending.get(requestId);
  }

  ended(taskId: string): boolean {
    return this.endedIds.has(taskId);
  }
}
