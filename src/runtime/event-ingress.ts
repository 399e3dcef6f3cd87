// What reaches the dispatcher from actors: worker event batches (validated, one stamp per batch, invalid ones
// counted as source drops, credits returned). A backlog is kept per actor and handled a slice per event-loop turn,
// the actors with one taking turns: a quiet actor's events never wait behind a busy actor's backlog. A critical event
// pulls its actor's backlog (and its own batch up to it) through at once, in order; only a saturated sender's critical
// events (its batch reports source drops) are published ahead of its own backlog. A packed batch (JSON text chunks,
// `packEvents`) is parsed a chunk at its turn.
import type { Clock } from './actor.js';
import type { ActorHandle } from './actor-host.js';
import type { Dispatcher } from './dispatcher.js';
import { parseEvent } from './event-check.js';
import { CRITICAL_EVENT_TYPES, type Event } from './protocol/index.js';

/** Events handled in one turn; a longer batch (a saturated sender's window) waits its turn in slices. */
export const INGRESS_SLICE = 128;

/** A batch's events not handled yet, from `at` on; a packed chunk (JSON text) until its turn parses it. */
interface Backlog {
  events: unknown[] | string;
  at: number;
  ts: number;
}

/** The events of a backlog entry, a packed chunk parsed now (text that is not an array: one invalid event). */
function unpacked(b: Backlog): unknown[] {
  if (typeof b.events !== 'string') return b.events;
  let evs: unknown;
  try {
    evs = JSON.parse(b.events);
  } catch {
    evs = undefined;
  }
  b.events = Array.isArray(evs) ? evs : [undefined];
  return b.events;
}

const isCritical = (raw: unknown): boolean => CRITICAL_EVENT_TYPES.has((raw as { type?: unknown } | null)?.type as Event['type']);

function lastCritical(events: unknown[]): number {
  for (let i = events.length - 1; i >= 0; i--) if (isCritical(events[i])) return i;
  return -1;
}

export class EventIngress {
  /** Each actor's queued batches in the order it sent them; the map's order is whose turn comes next. */
  private readonly queues = new Map<ActorHandle, Backlog[]>();
  private armed = false;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly clock: Clock,
    private readonly schedule: (fn: () => void) => void = setImmediate,
  ) {}

  /** A worker's batch: each event checked against EventSchema on this thread (`parseEvent`: the flat shapes by hand). */
  events(a: ActorHandle, events: unknown[], dropped: Record<string, number>): void {
    const ts = this.clock.now(); // one stamp per batch: the batch arrived at one instant
    const saturated = Object.keys(dropped).length > 0;
    if (saturated) this.dispatcher.recordSourceDrops(a.source, dropped);
    let mine = this.queues.get(a);
    // packed (`packEvents`: JSON text chunks of normal-lane flat events): queued unparsed, from the next turn on, so a
    // critical event posted behind it is handled first and no chunk is parsed before its turn
    if (typeof events[0] === 'string') {
      if (!mine) this.queues.set(a, (mine = []));
      for (const c of events) mine.push({ events: typeof c === 'string' ? c : [c], at: 0, ts });
      if (!this.armed) {
        this.armed = true;
        this.schedule(() => this.pump());
      }
      return;
    }
    // nothing of this actor queued: its batch goes now, whatever other actors still have queued
    if (mine === undefined && events.length <= INGRESS_SLICE) return this.handle(a, events, 0, events.length, ts);
    let queued = events;
    const last = lastCritical(events);
    if (last >= 0 && saturated) {
      // the normal lane is dropping at its source: its critical events do not wait behind what is queued
      const critical = events.filter(isCritical);
      this.handle(a, critical, 0, critical.length, ts);
      queued = events.filter((raw) => !isCritical(raw));
    } else if (last >= 0) {
      // a critical event keeps its place in its actor's order but waits for no turn: what is queued before it goes now
      this.settle(a);
      mine = undefined;
      this.handle(a, events, 0, last + 1, ts);
      const rest = events.length - (last + 1);
      if (rest <= INGRESS_SLICE) return rest > 0 ? this.handle(a, events, last + 1, events.length, ts) : undefined;
      queued = events.slice(last + 1);
    }
    if (queued.length > 0) {
      if (mine) mine.push({ events: queued, at: 0, ts });
      else this.queues.set(a, [{ events: queued, at: 0, ts }]);
    }
    if (this.queues.size > 0 && !this.armed) this.pump();
  }

  /** Handles every queued event of one actor now (before its exit is reported, before a child it asked for runs). */
  settle(a: ActorHandle): void {
    const mine = this.queues.get(a);
    if (mine === undefined) return;
    this.queues.delete(a);
    for (const b of mine) {
      const evs = unpacked(b);
      this.handle(a, evs, b.at, evs.length, b.ts);
    }
  }

  /** One slice of the backlogs now, shared by the actors in turn; the next slice a turn later (port messages queued
   *  meanwhile go first). */
  private pump(): void {
    let left = INGRESS_SLICE;
    while (left > 0 && this.queues.size > 0) {
      const share = Math.ceil(left / this.queues.size);
      for (const [a, mine] of [...this.queues]) {
        if (left <= 0) break;
        left -= this.take(a, mine, Math.min(share, left));
        // served: to the back of the line (or out of it)
        this.queues.delete(a);
        if (mine.length > 0) this.queues.set(a, mine);
      }
    }
    this.armed = this.queues.size > 0;
    if (this.armed) this.schedule(() => this.pump());
  }

  /** Up to n of an actor's queued events, in order; returns how many. */
  private take(a: ActorHandle, mine: Backlog[], n: number): number {
    let done = 0;
    while (done < n && mine.length > 0) {
      const b = mine[0] as Backlog;
      const evs = unpacked(b);
      const end = Math.min(evs.length, b.at + n - done);
      this.handle(a, evs, b.at, end, b.ts);
      done += end - b.at;
      b.at = end;
      if (b.at >= evs.length) mine.shift();
    }
    return done;
  }

  /** events[from, to) in order (indices, not a slice: no array per slice under a flood). */
  private handle(a: ActorHandle, events: unknown[], from: number, to: number, ts: number): void {
    const source = a.source;
    let credits = 0;
    let invalid: Record<string, number> | undefined;
    for (let i = from; i < to; i++) {
      const raw = events[i];
      const type = (raw as { type?: unknown } | null)?.type;
      if (!CRITICAL_EVENT_TYPES.has(type as Event['type'])) credits++;
      const ev = parseEvent(raw);
      if (ev !== undefined) this.dispatcher.publish(source, ev, ts);
      else {
        invalid ??= {};
        invalid[`invalid:${String(type)}`] = (invalid[`invalid:${String(type)}`] ?? 0) + 1;
      }
    }
    if (invalid) this.dispatcher.recordSourceDrops(source, invalid);
    a.credit(credits);
  }
}
