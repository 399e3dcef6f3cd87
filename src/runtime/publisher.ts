// Sender side of the dispatcher: the first event of a turn goes at once, the rest batched per tick; a credit window on
// the normal lane, critical bypasses it; a long batch of flat events leaves packed as JSON text (`packEvents`).
import { flatShapes } from './event-check.js';
import { CRITICAL_EVENT_TYPES, type Event } from './protocol/index.js';

/** Events per JSON text chunk of a packed batch (`packEvents`); the ingress parses one chunk at a turn. */
export const PACK_CHUNK = 128;

/** A batch's wire form (what the worker posts). Over PACK_CHUNK events, all normal-lane flat shapes (a literal type and
 *  plain strings: JSON text is exact for them) in plain objects, go as JSON text chunks of PACK_CHUNK events: the
 *  receiving port copies strings instead of decoding an object graph (≈ 1 µs an event on the main thread, the largest
 *  share of its work under a flood), and the ingress parses a chunk at its turn, so a critical event posted behind the
 *  batch does not wait for its decoding. Anything else (a critical, another shape, a short batch) goes as the objects. */
export function packEvents(events: readonly Event[]): unknown[] {
  if (events.length <= PACK_CHUNK) return events as unknown[];
  const flat = flatShapes();
  for (const e of events) {
    if (!flat.has(e.type) || CRITICAL_EVENT_TYPES.has(e.type) || Object.getPrototypeOf(e) !== Object.prototype) return events as unknown[];
  }
  const out: string[] = [];
  try {
    for (let i = 0; i < events.length; i += PACK_CHUNK) out.push(JSON.stringify(events.slice(i, i + PACK_CHUNK)));
  } catch {
    return events as unknown[]; // a value JSON cannot write (a bigint in an extra key): the objects, as ever
  }
  return out;
}

export interface PublishBatch {
  events: Event[];
  /** Normal-lane events dropped here because the credit window was empty, per type. */
  dropped: Record<string, number>;
}

export class LanePublisher {
  private credits: number;
  private buf: Event[] = [];
  private dropped: Record<string, number> = {};
  private scheduled = false;
  private sentNormal = 0;
  private droppedTotal = 0;

  constructor(
    private readonly send: (batch: PublishBatch) => void,
    readonly window: number,
    private readonly schedule: (fn: () => void) => void = setImmediate,
  ) {
    this.credits = window;
  }

  publish(event: Event): void {
    if (CRITICAL_EVENT_TYPES.has(event.type)) {
      // Critical is rare and latency-bound: flush now, in order with what was buffered before it, unless the normal
      // lane is saturated (window empty): then it goes first, with the drop counts that tell the receiver so
      if (this.credits <= 0 && this.buf.length > 0) {
        this.send({ events: [event], dropped: this.dropped });
        this.dropped = {};
      } else this.buf.push(event);
      this.flush();
      return;
    }
    if (this.credits <= 0) {
      this.dropped[event.type] = (this.dropped[event.type] ?? 0) + 1;
      this.droppedTotal++;
      this.arm();
      return;
    }
    this.credits--;
    this.sentNormal++;
    this.buf.push(event);
    // The first event after an idle turn leaves now: what the actor does next in this turn (the rest of a parsed
    // reply, a tool batch) runs before any setImmediate, so a batched first token would wait for all of it. Events
    // after it in the same turn are batched as before (at most one more message a turn).
    if (!this.scheduled && this.buf.length === 1) this.flush();
    this.arm();
  }

  /** The receiver consumed n normal events. */
  credit(n: number): void {
    this.credits = Math.min(this.window, this.credits + n);
  }

  /** Sends whatever is buffered now (also used before done/stopped so nothing is left behind). */
  flush(): void {
    if (this.buf.length === 0 && Object.keys(this.dropped).length === 0) return;
    const batch = { events: this.buf, dropped: this.dropped };
    this.buf = [];
    this.dropped = {};
    this.send(batch);
  }

  stats(): { inFlight: number; sentNormal: number; dropped: number } {
    return { inFlight: this.window - this.credits, sentNormal: this.sentNormal, dropped: this.droppedTotal };
  }

  private arm(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.flush();
    });
  }
}
