// Frame coalescing: any number of dirty marks between frames become ONE render, at most `fps` per second.

import { realClock, type Clock } from '../../src/runtime/clock.js';

export type FrameClock = Clock;

/** The real clock read monotonically: frame pacing must not jump with the wall clock. */
export const realFrameClock: FrameClock = { ...realClock, now: () => performance.now() };

export class FrameScheduler {
  private pending: { cancel(): void } | null = null;
  private last = -Infinity;
  /** Frames rendered so far (bench and tests read it). */
  frames = 0;
  private readonly interval: number;

  constructor(
    private readonly render: () => void,
    fps = 30,
    private readonly clock: FrameClock = realFrameClock,
  ) {
    this.interval = 1000 / fps;
  }

  /** Marks the screen dirty; the render happens at the next frame slot (never more often than fps). */
  mark(): void {
    if (this.pending) return;
    const wait = Math.max(0, this.last + this.interval - this.clock.now());
    this.pending = this.clock.setTimeout(() => this.flush(), wait);
  }

  /** Renders now (input echo, resize) and drops any scheduled frame. */
  flush(): void {
    this.pending?.cancel();
    this.pending = null;
    this.last = this.clock.now();
    this.frames++;
    this.render();
  }

  stop(): void {
    this.pending?.cancel();
    this.pending = null;
  }
}
