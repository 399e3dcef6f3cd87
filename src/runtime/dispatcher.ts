// The mailbox dispatcher: stamps seq per task, fans out to filtered bounded mailboxes, keeps the drop ledger.
import type { Clock } from './actor.js';
import { realClock } from './clock.js';
import { Mailbox, type MailboxFilter, type MailboxStats } from './mailbox.js';
import { NamedTasks } from './tasks.js';
import { CRITICAL_EVENT_TYPES, type Envelope, type Event, type EventOf, type Lane } from './protocol/index.js';

/** The one place the default mailbox capacity is defined (seeds pitfall 35). */
export const DEFAULT_MAILBOX_CAPACITY = 1000;
/** Recent envelopes kept per task so a late client can catch up from a seq. */
export const DEFAULT_REPLAY_PER_TASK = 2000;
/** Scope of events published outside any task (services). */
export const SYSTEM_SCOPE = 'system';

export interface PublishSource {
  name: string;
  taskId: string | null;
  delegationId: string | null;
}

export interface DispatcherOptions {
  capacity?: number;
  replayPerTask?: number;
  warnIntervalMs?: number;
  /** Sink of the rate-limited drop warning (default: process warning). */
  onWarn?: (message: string) => void;
  clock?: Clock;
}

export interface SubscribeOptions {
  name: string;
  filter?: MailboxFilter;
  capacity?: number;
  /** Replays buffered envelopes of filter.taskId with seq > fromSeq before live ones. */
  fromSeq?: number;
}

export interface DropLedger {
  total: number;
  byConsumer: Record<string, Record<string, number>>;
  /** Dropped at the sender (credit window empty), per task scope and type. */
  bySource: Record<string, Record<string, number>>;
}

/** drop_report rides the critical lane: a report of losses must not itself be lost. */
export function laneOf(type: string): Lane {
  return CRITICAL_EVENT_TYPES.has(type as Event['type']) || type === 'drop_report' ? 'critical' : 'normal';
}

interface TaskState {
  readonly id: string;
  seq: number;
  buf: Envelope[];
  next: number;
}

function bump(rec: Record<string, Record<string, number>>, a: string, b: string, n = 1): void {
  const inner = (rec[a] ??= {});
  inner[b] = (inner[b] ?? 0) + n;
}

export class Dispatcher {
  readonly capacity: number;
  /** Per task: its last seq and its last `replayPerTask` envelopes, a ring once full (`next` is the oldest's slot). */
  private readonly tasks = new Map<string, TaskState>();
  /** The task published to last (a flood is one task's): its state without a lookup per publish. */
  private lastTask: TaskState | undefined;
  private readonly boxes = new Set<Mailbox>();
  /** `boxes` as an array, replaced on subscribe and close: a publish walks it by index (a Set's iterator allocated
   *  ~40 bytes per publish, the largest share after the envelope itself under a flood). */
  private boxList: readonly Mailbox[] = [];
  private readonly ledger: DropLedger = { total: 0, byConsumer: {}, bySource: {} };
  private readonly taskDrops = new Map<string, Record<string, number>>();
  private readonly lastWarn = new Map<string, number>();
  /** By consumer name (no key string built per drop). */
  private readonly lastBoxWarn = new Map<string, number>();
  private readonly clock: Clock;
  private readonly loops = new NamedTasks();
  published = 0;

  constructor(private readonly opts: DispatcherOptions = {}) {
    this.capacity = opts.capacity ?? DEFAULT_MAILBOX_CAPACITY;
    this.clock = opts.clock ?? realClock;
  }

  /** Stamps seq (strictly increasing per task) and offers the envelope to every matching mailbox. */
  publish(source: PublishSource, event: Event, ts = this.clock.now()): Envelope {
    const taskId = source.taskId ?? SYSTEM_SCOPE;
    const st = this.task(taskId);
    const env: Envelope = {
      seq: ++st.seq,
      taskId,
      delegationId: source.delegationId,
      source: source.name,
      type: event.type,
      lane: laneOf(event.type),
      ts,
      payload: event,
    };
    this.published++;
    this.remember(st, env);
    const boxes = this.boxList;
    for (let i = 0; i < boxes.length; i++) {
      const mb = boxes[i] as Mailbox;
      if (mb.matches(env)) mb.offer(env);
    }
    return env;
  }

  /** Records drops that happened at a sender before the dispatcher saw them. */
  recordSourceDrops(source: PublishSource, dropped: Record<string, number>): void {
    const scope = source.taskId ?? SYSTEM_SCOPE;
    for (const [type, n] of Object.entries(dropped)) {
      if (n <= 0) continue;
      this.ledger.total += n;
      bump(this.ledger.bySource, scope, type, n);
      this.countTask(scope, `source/${type}`, n);
    }
    if (this.warnDue(this.lastWarn, `source:${source.name}`)) this.sink(`${source.name} dropped ${Object.values(dropped).reduce((a, b) => a + b, 0)} normal-lane events (credit window empty)`);
  }

  subscribe(opts: SubscribeOptions): Mailbox {
    const mb = new Mailbox(
      opts.name,
      opts.capacity ?? this.capacity,
      opts.filter ?? {},
      (box, env) => this.onDrop(box, env),
      (box) => {
        if (this.boxes.delete(box)) this.boxList = [...this.boxes];
      },
    );
    if (opts.fromSeq !== undefined && opts.filter?.taskId !== undefined) {
      for (const env of this.replay(opts.filter.taskId, opts.fromSeq)) if (mb.matches(env)) mb.offer(env);
    }
    this.boxes.add(mb);
    this.boxList = [...this.boxes];
    return mb;
  }

  /** Callback consumer: a named loop awaits the handler (its pace is the mailbox's drain rate). */
  consume(opts: SubscribeOptions, handler: (env: Envelope) => void | Promise<void>): { mailbox: Mailbox; done: Promise<void> } {
    const mailbox = this.subscribe(opts);
    const done = this.loops.go(`consumer:${opts.name}`, async () => {
      for await (const env of mailbox) await handler(env);
    });
    return { mailbox, done };
  }

  /** Buffered envelopes of a task with seq > afterSeq (oldest first). */
  replay(taskId: string, afterSeq = 0): Envelope[] {
    const r = this.tasks.get(taskId);
    if (!r) return [];
    const inOrder = r.next === 0 ? r.buf : [...r.buf.slice(r.next), ...r.buf.slice(0, r.next)];
    return inOrder.filter((e) => e.seq > afterSeq);
  }

  lastSeq(taskId: string): number {
    return this.tasks.get(taskId)?.seq ?? 0;
  }

  dropped(): DropLedger {
    return structuredClone(this.ledger);
  }

  consumers(): MailboxStats[] {
    return [...this.boxes].map((b) => b.stats());
  }

  /** Mailbox depth and drops of one task scope, for the tree snapshot. */
  scopeStats(taskId: string): { mailboxDepth: number; drops: number } {
    let depth = 0;
    for (const b of this.boxes) if (b.filter.taskId === taskId) depth += b.depth;
    const d = this.taskDrops.get(taskId) ?? {};
    return { mailboxDepth: depth, drops: Object.values(d).reduce((a, b) => a + b, 0) };
  }

  /** Publishes a drop_report for a task scope if anything was dropped there; returns it. */
  warnDropped(scope: string): EventOf<'drop_report'> | null {
    const d = this.taskDrops.get(scope);
    if (!d || Object.keys(d).length === 0) return null;
    const report: EventOf<'drop_report'> = { type: 'drop_report', scope, dropped: { ...d } };
    this.publish({ name: 'dispatcher', taskId: scope === SYSTEM_SCOPE ? null : scope, delegationId: null }, report);
    return report;
  }

  /** Forgets a finished task's replay buffer and drop counts (its seq counter stays: a task id never counts twice). */
  forget(taskId: string): void {
    const st = this.tasks.get(taskId);
    if (st) {
      st.buf = [];
      st.next = 0;
    }
    this.taskDrops.delete(taskId);
    for (const b of this.boxList) if (b.dropMemo?.taskId === taskId) b.dropMemo = undefined;
  }

  async close(): Promise<void> {
    for (const b of [...this.boxes]) b.close();
    await this.loops.drain(1000);
  }

  private task(taskId: string): TaskState {
    const last = this.lastTask;
    if (last !== undefined && last.id === taskId) return last;
    let st = this.tasks.get(taskId);
    if (!st) this.tasks.set(taskId, (st = { id: taskId, seq: 0, buf: [], next: 0 }));
    this.lastTask = st;
    return st;
  }

  private remember(r: TaskState, env: Envelope): void {
    const max = this.opts.replayPerTask ?? DEFAULT_REPLAY_PER_TASK;
    if (max <= 0) return;
    // a ring of exactly `max`: nothing allocated per publish once full, and no envelope kept past its turn (a
    // trimmed array kept up to 2 × max alive, which every young-generation GC under a flood copied)
    if (r.buf.length < max) r.buf.push(env);
    else {
      r.buf[r.next] = env;
      r.next = (r.next + 1) % max;
    }
  }

  private countTask(scope: string, key: string, n: number): void {
    let d = this.taskDrops.get(scope);
    if (!d) this.taskDrops.set(scope, (d = {}));
    d[key] = (d[key] ?? 0) + n;
  }

  /** Runs once per drop under a flood: no string or closure is built unless a warning is due. */
  private onDrop(box: Mailbox, env: Envelope): void {
    this.ledger.total++;
    let m = box.dropMemo;
    if (m === undefined || m.taskId !== env.taskId || m.type !== env.type) {
      let task = this.taskDrops.get(env.taskId);
      if (!task) this.taskDrops.set(env.taskId, (task = {}));
      m = box.dropMemo = { taskId: env.taskId, type: env.type, consumer: (this.ledger.byConsumer[box.name] ??= {}), task, key: box.dropKey(env.type) };
    }
    m.consumer[m.type] = (m.consumer[m.type] ?? 0) + 1;
    m.task[m.key] = (m.task[m.key] ?? 0) + 1;
    if (this.warnDue(this.lastBoxWarn, box.name)) this.sink(`mailbox ${box.name} full (capacity ${box.capacity}): dropped ${box.droppedTotal} normal-lane events so far`);
  }

  /** Rate limit of the drop warning, per source or consumer, on the injected clock. */
  private warnDue(last: Map<string, number>, key: string): boolean {
    const now = this.clock.now();
    const at = last.get(key);
    if (at !== undefined && now - at < (this.opts.warnIntervalMs ?? 5000)) return false;
    last.set(key, now);
    return true;
  }

  private sink(message: string): void {
    if (this.opts.onWarn) this.opts.onWarn(message);
    else process.emitWarning(message, { code: 'YAGENT_DROPS' });
  }
}
