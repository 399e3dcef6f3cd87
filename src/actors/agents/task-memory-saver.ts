// The Director's conversation memory saved as task memory (`/api/memory`, `load_task`, attach): a recorder wrapper
// that folds the records it forwards exactly like the replay reader, and hands the store one snapshot per step.
// The store debounces (5 s, named task `task-memory:<id>`, injectable clock); runTask flushes at the end.
// A snapshot is taken and posted once a step's request is sent (`afterSend`): never on the path to the request (the
// records are deep-copied into the memory then, not as they are appended), and
// at most one per TASK_MEMORY_POST_MS while the run goes on (each is the whole history: cloned here, cloned into the
// store's thread and redacted there, per step that was O(history) work beside every request); drain posts the last.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../../runtime/actor.js';
import { realClock } from '../../runtime/clock.js';
import type { MemoryJson, RolloutRecord, StoreApi } from '../../store/api.js';
import { ConversationMemory } from '../../store/types-memory.js';
import type { Publish, Recorder } from './loop-contract.js';

/** The most often a running Director's memory crosses to the store (what `/api/memory` shows lags by at most this). */
export const TASK_MEMORY_POST_MS = 1000;

export class TaskMemorySaver implements Recorder {
  private readonly memory = new ConversationMemory(0);
  /** Records taken since the last snapshot, not yet in `memory` (the loop never mutates a message it recorded). */
  private unfolded: RolloutRecord[] = [];
  private dirty = false;
  /** A step boundary passed since the last snapshot: one is due once the step's request is on its way. */
  private due = false;
  /** The last save RPC (settles, never rejects): drain awaits it, so no save is left in flight. */
  private saving: Promise<void> = Promise.resolve();
  /** When the last snapshot was posted (clock ms), and the trailing post armed meanwhile. */
  private lastPost = Number.NEGATIVE_INFINITY;
  private trailing: { cancel(): void } | null = null;
  private readonly clock: Clock;
  private readonly everyMs: number;

  constructor(
    private readonly inner: Recorder,
    private readonly taskId: string,
    private readonly store: Pick<StoreApi, 'saveTaskMemory'>,
    private readonly publish: Publish,
    opts: { clock?: Clock; everyMs?: number } = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.everyMs = opts.everyMs ?? TASK_MEMORY_POST_MS;
  }

  append(records: RolloutRecord[]): void {
    this.inner.append(records);
    for (const r of records) {
      if (r.type === 'response_item' || r.type === 'compacted') {
        // folded (deep-copied) when the snapshot is taken, after the request: no clone on the path to it
        this.unfolded.push(r);
        this.dirty = true;
      } else if (r.type === 'turn_context') {
        this.due = true; // a step boundary: at most one snapshot per step crosses to the store, after its request
      }
    }
  }

  /** The records appended since the last snapshot, into the memory, in order (the replay reader's rules). */
  private fold(): void {
    const records = this.unfolded;
    this.unfolded = [];
    for (const r of records) {
      if (r.type === 'response_item') this.memory.append(r.payload);
      // the replay rule: the compacted messages replace the first `replacesCount`
      else if (r.type === 'compacted') this.memory.replace([...r.payload.messages, ...this.memory.snapshot().slice(r.payload.replacesCount)]);
    }
  }

  /** The request's send path runs to the socket first (the engine's microtasks); the snapshot goes on the next turn,
   *  or, when one went less than `everyMs` ago, once that much time has passed (taking every step meanwhile). */
  afterSend(): void {
    this.inner.afterSend?.();
    if (!this.due) return;
    this.due = false;
    if (this.trailing !== null) return;
    const wait = this.lastPost + this.everyMs - this.clock.now();
    if (wait <= 0) {
      this.lastPost = this.clock.now();
      this.saving = this.saving.then(() => nextTurn()).then(() => this.post());
      return;
    }
    this.trailing = this.clock.setTimeout(() => {
      this.trailing = null;
      this.lastPost = this.clock.now();
      this.saving = this.saving.then(() => this.post());
    }, wait);
  }

  /** The memory as it is now, to the store; settles, never rejects. */
  private async post(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    this.fold();
    const snapshot: MemoryJson = this.memory.toJSON();
    await this.store.saveTaskMemory(this.taskId, snapshot).catch((e: unknown) => {
      this.publish({ type: 'log', level: 'warn', message: `task memory not saved for ${this.taskId}: ${String(e)}` });
    });
  }

  /** The write-ahead record before an effect: the rollout only (task memory is no ledger). */
  async writeAhead(): Promise<void> {
    await (this.inner.writeAhead ?? this.inner.drain).call(this.inner);
  }

  async drain(): Promise<void> {
    this.due = false;
    this.trailing?.cancel();
    this.trailing = null;
    this.saving = this.saving.then(() => this.post());
    await this.saving;
    await this.inner.drain();
  }
}
