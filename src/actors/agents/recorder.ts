// The rollout through the store actor: appends are coalesced into one ordered RPC at a time, drain awaits them. The
// path may still be on its way (the run does not wait for the store's answer to the opening: runAgent).
import type { RolloutRecord, StoreApi } from '../../store/api.js';
import type { Recorder, Publish } from './loop-contract.js';

export class StoreRecorder implements Recorder {
  /** Records not yet handed to the store; sent as one append when the previous one is acknowledged. */
  private pending: RolloutRecord[] = [];
  private inFlight: Promise<void> | null = null;
  private failed = 0;
  /** Records lost since the last writeAhead(): a call among them is not durable. */
  private lostSinceAhead = 0;

  constructor(
    private readonly path: Promise<string>,
    private readonly store: Pick<StoreApi, 'appendRollout' | 'drain'>,
    private readonly publish: Publish,
  ) {}

  append(records: RolloutRecord[]): void {
    if (records.length === 0) return;
    this.pending.push(...records);
    // one RPC in flight: a step's several appends travel together instead of one round trip each
    this.inFlight ??= this.pump();
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
    while (this.inFlight) await this.inFlight;
    await this.store.drain(await this.path);
  }

  async writeAhead(): Promise<void> {
    await this.drain();
    const lost = this.lostSinceAhead;
    this.lostSinceAhead = 0;
    if (lost > 0) throw new Error(`${lost} rollout records were lost`);
  }
}
