// One attempt's silence: how long since the server's last byte (or since the attempt began). A notice every
// `noticeMs` of silence lets every client show that the call is waiting and for how long; silence past `idleMs` is an
// error (the server accepted and went quiet), not a wait. A byte costs one clock read; one timer runs per attempt.
import type { Clock } from '../../../runtime/actor.js';

export interface SilenceWatchOptions {
  /** Silence that ends the attempt (0 = never). */
  idleMs: number;
  /** Silence between two notices. */
  noticeMs: number;
  /** The attempt has been silent for `silentMs` (a multiple of noticeMs); `over` once bytes flow again or it ends. */
  onNotice(silentMs: number, over: boolean): void;
  onIdle(silentMs: number): void;
}

export class SilenceWatch {
  private last: number;
  private noticed = 0;
  private timer: { cancel(): void } | null = null;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly opts: SilenceWatchOptions,
  ) {
    this.last = clock.now();
    this.arm(Math.min(opts.noticeMs, opts.idleMs > 0 ? opts.idleMs : Number.POSITIVE_INFINITY));
  }

  /** A byte of the answer arrived. */
  wire(): void {
    this.last = this.clock.now();
    if (this.noticed > 0) {
      this.opts.onNotice(this.noticed, true);
      this.noticed = 0;
    }
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.timer?.cancel();
    if (this.noticed > 0) this.opts.onNotice(this.noticed, true);
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimeout(() => this.check(), Math.max(1, ms));
  }

  private check(): void {
    if (this.stopped) return;
    const silent = this.clock.now() - this.last;
    const { idleMs, noticeMs } = this.opts;
    if (idleMs > 0 && silent >= idleMs) {
      this.stop();
      this.opts.onIdle(silent);
      return;
    }
    const due = Math.floor(silent / noticeMs) * noticeMs;
    if (due > this.noticed && due > 0) {
      this.noticed = due;
      this.opts.onNotice(due, false);
    }
    // next: the next notice mark or the idle limit, whichever comes first
    const nextNotice = (Math.floor(silent / noticeMs) + 1) * noticeMs - silent;
    const toIdle = idleMs > 0 ? idleMs - silent : Number.POSITIVE_INFINITY;
    this.arm(Math.min(nextNotice, toIdle));
  }
}
