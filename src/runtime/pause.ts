// Pause is not cancel: a gate that blocks at step boundaries, and an activity clock frozen while paused.
import type { Clock, PauseGate } from './actor.js';
import { abortError } from './clock.js';
import { realClock } from './clock.js';

type Listener = (paused: boolean) => void;

/** The writable side of a PauseGate (held by the task; actors see only the gate). */
export class PauseController implements PauseGate {
  private isPaused = false;
  private waiters: (() => void)[] = [];
  private readonly listeners = new Set<Listener>();

  get paused(): boolean {
    return this.isPaused;
  }

  pause(): boolean {
    if (this.isPaused) return false;
    this.isPaused = true;
    for (const l of [...this.listeners]) l(true);
    return true;
  }

  resume(): boolean {
    if (!this.isPaused) return false;
    this.isPaused = false;
    const ws = this.waiters;
    this.waiters = [];
    for (const l of [...this.listeners]) l(false);
    for (const w of ws) w();
    return true;
  }

  wait(signal?: AbortSignal): Promise<void> {
    if (!this.isPaused) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(abortError(signal));
      };
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Observes pause/resume transitions; returns the unsubscribe function. */
  onChange(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

/** A gate paused while any of `gates` is (a delegation's backstop: its task, or the child alone, is paused). */
export function anyPaused(gates: readonly PauseController[]): { gate: PauseController; dispose(): void } {
  const gate = new PauseController();
  const sync = (): void => void (gates.some((g) => g.paused) ? gate.pause() : gate.resume());
  const offs = gates.map((g) => g.onChange(sync));
  sync();
  return { gate, dispose: () => offs.forEach((off) => off()) };
}

export type ActivityTimeout = 'idle_timeout' | 'total_timeout';

export interface ActivityOptions {
  idleMs?: number;
  totalMs?: number;
  onTimeout: (kind: ActivityTimeout) => void;
  clock?: Clock;
  /** When given, the clock freezes while this gate is paused (idle and total alike). */
  gate?: PauseController;
}

/** Idle and total timers measured in active time only: time spent paused does not count. */
export class ActivityClock {
  private readonly clock: Clock;
  private activeBefore = 0; // active ms accumulated before the current running stretch
  private runningSince: number | null;
  private lastTouchActive = 0; // active-time stamp of the last touch()
  private timers: { cancel(): void }[] = [];
  private fired = false;
  /** Open `during` waits: while any is, the clock stays frozen. */
  private holds = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly opts: ActivityOptions) {
    this.clock = opts.clock ?? realClock;
    this.runningSince = opts.gate?.paused ? null : this.clock.now();
    this.unsubscribe = opts.gate?.onChange((p) => (p ? this.freeze() : this.holds === 0 && this.thaw()));
    this.arm();
  }

  /** Active (unpaused) ms since start. */
  activeMs(): number {
    return this.activeBefore + (this.runningSince === null ? 0 : this.clock.now() - this.runningSince);
  }

  /** Active ms since the last touch(). */
  idleMs(): number {
    return this.activeMs() - this.lastTouchActive;
  }

  get frozen(): boolean {
    return this.runningSince === null;
  }

  /** Records activity: pushes the idle baseline. */
  touch(): void {
    this.lastTouchActive = this.activeMs();
    this.arm();
  }

  freeze(): void {
    if (this.runningSince === null) return;
    this.activeBefore += this.clock.now() - this.runningSince;
    this.runningSince = null;
    this.disarm();
  }

  /** Waiting on the user (an approval, a question) is not idleness: the clock is frozen from before `wait` starts
   *  until it settles, then the idle baseline starts over. Pausing and continuing the task meanwhile does not thaw it. */
  async during<T>(wait: () => Promise<T>): Promise<T> {
    this.holds++;
    this.freeze();
    try {
      return await wait();
    } finally {
      this.holds--;
      if (this.holds === 0 && !this.opts.gate?.paused) {
        this.thaw();
        this.touch();
      }
    }
  }

  thaw(): void {
    if (this.runningSince !== null) return;
    this.runningSince = this.clock.now();
    this.arm();
  }

  dispose(): void {
    this.disarm();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private disarm(): void {
    for (const t of this.timers) t.cancel();
    this.timers = [];
  }

  private arm(): void {
    this.disarm();
    if (this.fired || this.runningSince === null) return;
    const { idleMs, totalMs } = this.opts;
    if (totalMs !== undefined) this.timers.push(this.clock.setTimeout(() => this.check(), Math.max(0, totalMs - this.activeMs())));
    if (idleMs !== undefined) this.timers.push(this.clock.setTimeout(() => this.check(), Math.max(0, idleMs - this.idleMs())));
  }

  private check(): void {
    if (this.fired || this.runningSince === null) return;
    const { idleMs, totalMs } = this.opts;
    const kind: ActivityTimeout | null =
      totalMs !== undefined && this.activeMs() >= totalMs
        ? 'total_timeout'
        : idleMs !== undefined && this.idleMs() >= idleMs
          ? 'idle_timeout'
          : null;
    if (kind === null) return this.arm();
    this.fired = true;
    this.disarm();
    this.opts.onTimeout(kind);
  }
}
