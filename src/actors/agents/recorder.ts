// The rollout through the store actor: appends are coalesced into one ordered RPC at a time, drain awaits them. The
// path may still be on its way (the run does not wait for the store's answer to the opening: runAgent).
// A step's records cross to the store together once its request has left (`afterSend`), or after ROLLOUT_HOLD_MS when
// no request follows (a long tool, the end of the run): never a post (a structured clone, the store thread woken) on
// the path from a tool result to the next request. drain and writeAhead send at once.
import type { Clock } from '../../runtime/actor.js';
import { realClock } from '../../runtime/clock.js';
import type { RolloutRecord, StoreApi } from '../../store/api.js';
import type { Recorder, Publish } from './loop-contract.js';

/** The longest a record waits for its step's request before it goes alone (the store's own group commit waits 20 ms). */
export const ROLLOUT_HOLD_MS = 20;

export class StoreRecorder implements Recorder {
  /** Records not yet handed to the store; sent as one append when the previous one is acknowledged. */
  private pending: RolloutRecord[] = [];
  private inFlight: Promise<void> | null = null;
  private hold: { cancel(): void } | null = null;
  private failed = 0;
  /** Records lost since the last writeAhead(): a call among them is not durable. */
  private lostSinceAhead = 0;
  private readonly clock: Clock;
  private readonly holdMs: number;

  constructor(
    private readonly path: Promise<string>,
    private readonly store: Pick<StoreApi, 'appendRollout' | 'drain'>,
    private readonly publish: Publish,
    opts: { clock?: Clock; holdMs?: number } = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.holdMs = opts.holdMs ?? ROLLOUT_HOLD_MS;
  }

  append(records: RolloutRecord[]): void {
    if (records.length === 0) return;
    this.pending.push(...records);
    // one RPC in flight: a step's several appends travel together instead of one round trip each
    if (this.inFlight !== null || this.hold !== null) return;
    this.hold = this.clock.setTimeout(() => {
      this.hold = null;
      this.send();
    }, this.holdMs);
  }

  /** The step's request is handed to the engine: what the step recorded goes once its send path has run to the
   *  socket (the engine's microtasks), on the next turn of the event loop. */
  afterSend(): void {
    if (this.pending.length === 0 || this.inFlight !== null) return;
    this.hold?.cancel();
    const soon = setImmediate(() => {
      this.hold = null;
      this.send();
    });
    this.hold = { cancel: () => clearImmediate(soon) };
  }

  private send(): void {
    this.hold?.cancel();
    this.hold = null;
    if (this.pending.length > 0) this.inFlight ??= this.pump();
  }

  private async pump(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        await this.path.then((path) => this.store.appendRollout(path, batch)).catch((e: unknown) => {
          // A lost record must be knowable: count it and say so once per failure.
          this.failed += batch.length;
          this.lostSinceAhead += batch.length;
          this.publish({ type: 'log', level: 'error', message: `rollout append failed (${this.failed} records lost so far): ${String(e)}` });
        });
      }
    } finally {
      this.inFlight = null;
    }
  }

  async drain(): Promise<void> {
    // records appended while an earlier batch is acknowledged are sent and awaited too
    for (this.send(); this.inFlight !== null; this.send()) await this.inFlight;
    await this.store.drain(await this.path);
  }

  async writeAhead(): Promise<void> {
    await this.drain();
    const lost = this.lostSinceAhead;
    this.lostSinceAhead = 0;
    if (lost > 0) throw new Error(`${lost} rollout records were lost`);
  }
}
