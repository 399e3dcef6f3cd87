// What reaches the dispatcher from actors: worker event batches (validated, one stamp per batch, invalid ones
// counted as source drops, credits returned).
import type { Clock } from './actor.js';
import type { ActorHandle } from './actor-host.js';
import type { Dispatcher } from './dispatcher.js';
import { CRITICAL_EVENT_TYPES, EventSchema, type Event } from './protocol/index.js';

export class EventIngress {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly clock: Clock,
  ) {}

  /** A worker's batch: each event checked with EventSchema on this thread (~0.3 µs of its ~2.4 µs cost). */
  events(a: ActorHandle, events: unknown[], dropped: Record<string, number>): void {
    const source = a.source;
    let credits = 0;
    const ts = this.clock.now(); // one stamp per batch: the batch arrived at one instant
    const invalid: Record<string, number> = { ...dropped };
    for (const raw of events) {
      const type = (raw as { type?: unknown } | null)?.type;
      if (!CRITICAL_EVENT_TYPES.has(type as Event['type'])) credits++;
      const ev = EventSchema.safeParse(raw);
      if (ev.success) this.dispatcher.publish(source, ev.data, ts);
      else invalid[`invalid:${String(type)}`] = (invalid[`invalid:${String(type)}`] ?? 0) + 1;
    }
    if (Object.keys(invalid).length > 0) this.dispatcher.recordSourceDrops(source, invalid);
    a.credit(credits);
  }
}
