// The one clock module: `realClock` for production, `ManualClock` so tests control time instead of sleeping.
// Fake-time semantics (the only ones): advance() fires due timers in due order (ties in scheduling order), including
// timers a firing timer schedules if they fall due before the end; now() inside a firing timer reads its due time.
import type { Clock } from './actor.js';

export type { Clock } from './actor.js';

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

interface Timer {
  at: number;
  id: number;
  fn: () => void;
}

/** A clock that moves only when told (store, runtime, llm and agent tests all use this one). */
export class ManualClock implements Clock {
  private t: number;
  private nextId = 0;
  private timers: Timer[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): { cancel(): void } {
    const timer: Timer = { at: this.t + Math.max(0, ms), id: this.nextId++, fn };
    this.timers.push(timer);
    return { cancel: () => void (this.timers = this.timers.filter((x) => x !== timer)) };
  }

  /** Moves time forward, firing due timers in order (timers they schedule fire too if due). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
  }

  pending(): number {
    return this.timers.length;
  }
}

/** Resolves after ms on the given clock; rejects with the signal's reason if it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      timer.cancel();
      reject(abortError(signal));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves true after ms (at once for ms ≤ 0), false as soon as the signal aborts: a wait whose end is not an error. */
export function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return sleep(clock, ms, signal).then(() => true, () => false); // sleep rejects only when the signal aborts
}

export function abortError(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  if (r instanceof Error) return r;
  const e = new Error(typeof r === 'string' ? r : 'aborted');
  e.name = 'AbortError';
  return e;
}
