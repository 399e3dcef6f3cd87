// One consumer's bounded mailbox: normal lane drops when full (counted), critical is never dropped.
import type { Envelope } from './protocol/index.js';

export interface MailboxFilter {
  taskId?: string;
  delegationId?: string | null;
  types?: readonly string[];
}

export interface MailboxStats {
  name: string;
  capacity: number;
  depth: number;
  accepted: number;
  delivered: number;
  dropped: number;
  droppedByType: Record<string, number>;
}

/** The dispatcher's ledger records for the last (task, type) a mailbox dropped: no lookup per drop under a flood. */
export interface DropMemo {
  readonly taskId: string;
  readonly type: string;
  readonly consumer: Record<string, number>;
  readonly task: Record<string, number>;
  readonly key: string;
}

export class Mailbox implements AsyncIterable<Envelope> {
  private q: Envelope[] = [];
  private head = 0;
  private waiter: ((v: IteratorResult<Envelope>) => void) | undefined;
  private closedFlag = false;
  private readonly types: ReadonlySet<string> | undefined;
  private readonly dropKeys = new Map<string, string>();
  accepted = 0;
  delivered = 0;
  droppedTotal = 0;
  readonly droppedByType: Record<string, number> = {};
  /** Kept by the dispatcher (`onDrop`). */
  dropMemo: DropMemo | undefined;

  constructor(
    readonly name: string,
    readonly capacity: number,
    readonly filter: MailboxFilter,
    /** Told about every drop (type, taskId) so the dispatcher can keep its ledger and warn. */
    private readonly onDrop: (mb: Mailbox, env: Envelope) => void,
    private readonly onClose: (mb: Mailbox) => void,
  ) {
    this.types = filter.types ? new Set(filter.types) : undefined;
  }

  get depth(): number {
    return this.q.length - this.head;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  matches(env: Envelope): boolean {
    const f = this.filter;
    if (f.taskId !== undefined && env.taskId !== f.taskId) return false;
    if (f.delegationId !== undefined && env.delegationId !== f.delegationId) return false;
    return !this.types || this.types.has(env.type);
  }

  /** `<name>/<type>`, the drop ledger's key for this consumer, built once per type. */
  dropKey(type: string): string {
    let k = this.dropKeys.get(type);
    if (k === undefined) this.dropKeys.set(type, (k = `${this.name}/${type}`));
    return k;
  }

  /** Offers an envelope that matched the filter. */
  offer(env: Envelope): void {
    if (this.closedFlag) return;
    this.accepted++;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      this.delivered++;
      w({ value: env, done: false });
      return;
    }
    if (this.depth >= this.capacity) {
      if (env.lane === 'normal') return this.drop(env);
      // Critical never drops: evict the oldest normal envelope instead, or grow past capacity.
      const i = this.q.findIndex((e, k) => k >= this.head && e.lane === 'normal');
      if (i >= 0) {
        const [evicted] = this.q.splice(i, 1);
        if (evicted) this.drop(evicted);
      }
    }
    this.q.push(env);
  }

  private drop(env: Envelope): void {
    this.droppedTotal++;
    this.droppedByType[env.type] = (this.droppedByType[env.type] ?? 0) + 1;
    this.onDrop(this, env);
  }

  /** Takes the next queued envelope without waiting. */
  poll(): Envelope | undefined {
    if (this.depth === 0) return undefined;
    const env = this.q[this.head++];
    if (this.head > 1024 && this.head * 2 > this.q.length) {
      this.q = this.q.slice(this.head);
      this.head = 0;
    }
    if (env) this.delivered++;
    return env;
  }

  next(): Promise<IteratorResult<Envelope>> {
    const env = this.poll();
    if (env) return Promise.resolve({ value: env, done: false });
    if (this.closedFlag) return Promise.resolve({ value: undefined, done: true });
    return new Promise((r) => (this.waiter = r));
  }

  [Symbol.asyncIterator](): AsyncIterator<Envelope> {
    return { next: () => this.next(), return: () => (this.close(), Promise.resolve({ value: undefined, done: true })) };
  }

  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    const w = this.waiter;
    this.waiter = undefined;
    w?.({ value: undefined, done: true });
    this.onClose(this);
  }

  stats(): MailboxStats {
    return {
      name: this.name,
      capacity: this.capacity,
      depth: this.depth,
      accepted: this.accepted,
      delivered: this.delivered,
      dropped: this.droppedTotal,
      droppedByType: { ...this.droppedByType },
    };
  }
}
