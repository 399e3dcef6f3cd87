// The store's default clock (real timers); tests and the actor host inject their own.
import type { Clock } from '../runtime/actor.js';

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/** A manual clock for tests: time moves only when `advance` is called. */
export class ManualClock implements Clock {
  private t: number;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;
  constructor(start = 0) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): { cancel(): void } {
    const id = ++this.nextId;
    this.timers.push({ at: this.t + ms, fn, id });
    return { cancel: () => (this.timers = this.timers.filter((x) => x.id !== id)) };
  }
  pending(): number {
    return this.timers.length;
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const d of due) d.fn();
  }
}
