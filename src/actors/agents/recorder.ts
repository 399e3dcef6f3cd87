// The rollout through the store actor: appends are chained (ordered, never floating), drain awaits them.
import type { RolloutRecord, StoreApi } from '../../store/api.js';
import type { Recorder, Publish } from './ports.js';

export class StoreRecorder implements Recorder {
  private chain: Promise<void> = Promise.resolve();
  private failed = 0;

  constructor(
    readonly path: string,
    private readonly store: Pick<StoreApi, 'appendRollout' | 'drain'>,
    private readonly publish: Publish,
  ) {}

  append(records: RolloutRecord[]): void {
    if (records.length === 0) return;
    this.chain = this.chain.then(() =>
      this.store.appendRollout(this.path, records).catch((e: unknown) => {
        // A lost record must be knowable: count it and say so once per failure.
        this.failed += records.length;
        this.publish({ type: 'log', level: 'error', message: `rollout append failed (${this.failed} records lost so far): ${String(e)}` });
      }),
    );
  }

  async drain(): Promise<void> {
    await this.chain;
    await this.store.drain(this.path);
  }
}
