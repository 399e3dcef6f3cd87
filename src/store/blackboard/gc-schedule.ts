// Blackboard GC schedule: one pass as the named task `blackboard-gc` at store start, re-armed on the store clock.
import type { Clock, TaskGroup } from '../../runtime/actor.js';
import type { GcOptions } from '../api.js';

/** Between passes of a long-lived store (`yagent serve`); a headless run usually sees only the start-up pass. */
export const GC_EVERY_MS = 3_600_000;
export const GC_TASK = 'blackboard-gc';

/** Nothing to clean: no age limit and no cap (the config never yields a zero cap, a direct caller may). */
export const gcIsNoop = (o: GcOptions): boolean => o.ttlMs <= 0 && o.maxNotesPerBoard <= 0;

export class GcSchedule {
  private timer: { cancel(): void } | null = null;
  private stopped = false;
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly tasks: TaskGroup,
    private readonly clock: Clock,
    private readonly everyMs: number = GC_EVERY_MS,
  ) {}

  /** Starts one pass as the named task (never inside a write's call path); `settled()` waits for it. */
  start(): void {
    this.timer = null;
    if (this.stopped) return;
    this.last = this.tasks.go(GC_TASK, async () => {
      try {
        await this.pass();
      } finally {
        // re-armed only after a pass ends: two passes never overlap
        if (!this.stopped) this.timer = this.clock.setTimeout(() => this.start(), this.everyMs);
      }
    });
  }

  /** Runs one pass now; resolves when it is done, never rejects (its error goes to the task group). */
  tick(): Promise<void> {
    this.start();
    return this.last;
  }

  /** The latest pass (resolved when none ran): tests and shutdown wait on it. */
  settled(): Promise<void> {
    return this.last;
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** True while a next pass is armed (tests). */
  get armed(): boolean {
    return this.timer !== null;
  }
}
