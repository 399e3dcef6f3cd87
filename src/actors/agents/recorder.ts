// The rollout through the store actor: appends are coalesced into one ordered RPC at a time, drain awaits them. The
// path may still be on its way (the run does not wait for the store's answer to the opening: runAgent).
// Records cross to the store together right after a request has left (`afterSend`) once the oldest of them has waited
// ROLLOUT_BATCH_MS, so quick steps share one append; or after ROLLOUT_HOLD_MS when no request follows (a long tool,
// the end of the run): never a post (a structured clone, the store thread woken, its answer parsed here) on the path
// from a tool result to the next request, and not one per step. drain and writeAhead send at once.
import type { Clock } from '../../runtime/actor.js';
import { realClock } from '../../runtime/clock.js';
import type { RolloutRecord, StoreApi } from '../../store/api.js';
import type { Recorder, Publish } from './loop-contract.js';

/** The longest a record waits for its step's request before it goes alone (the store's own group commit waits 20 ms). */
export const ROLLOUT_HOLD_MS = 20;
/** A request that leaves takes the held records with it once the oldest has waited this long (under ROLLOUT_HOLD_MS, so
 *  a run of quick steps sends after a request, never from the hold's timer in the middle of a step). */
export const ROLLOUT_BATCH_MS = 10;

export class StoreRecorder implements Recorder {
  /** Records not yet handed to the store; sent as one append when the previous one is acknowledged. */
  private pending: RolloutRecord[] = [];
  private inFlight: Promise<void> | null = null;
  private hold: { cancel(): void } | null = null;
  /** When the oldest record in `pending` was appended (clock ms). */
  private heldSince = 0;
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
    if (this.pending.length === 0) this.heldSince = this.clock.now();
    this.pending.push(...records);
    this.armHold();
  }

  /** The records held go alone ROLLOUT_HOLD_MS after the oldest of them, unless a request takes them first. One RPC in
   *  flight: records appended meanwhile are held like any others once it is answered. */
  private armHold(): void {
    if (this.inFlight !== null || this.hold !== null || this.pending.length === 0) return;
    this.hold = this.clock.setTimeout(
      () => {
        this.hold = null;
        this.send();
      },
      Math.max(0, this.heldSince + this.holdMs - this.clock.now()),
    );
  }

  /** A request is handed to the engine: what is held goes once its send path has run to the socket (the engine's
   *  microtasks), on the next turn of the event loop, if the oldest record has waited ROLLOUT_BATCH_MS; else it waits
   *  for a later request (or the hold). */
  afterSend(): void {
    if (this.pending.length === 0 || this.inFlight !== null) return;
    if (this.clock.now() - this.heldSince < ROLLOUT_BATCH_MS) return;
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
    const batch = this.pending;
    this.pending = [];
    try {
      await this.path.then((path) => this.store.appendRollout(path, batch)).catch((e: unknown) => {
        // A lost record must be knowable: count it and say so once per failure.
        this.failed += batch.length;
        this.lostSinceAhead += batch.length;
        this.publish({ type: 'log', level: 'error', message: `rollout append failed (${this.failed} records lost so far): ${String(e)}` });
      });
    } finally {
      this.inFlight = null;
      // what came meanwhile is not sent on the answer's turn (mid-step): it waits for a request or its hold
      this.armHold();
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
