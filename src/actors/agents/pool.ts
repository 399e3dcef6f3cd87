// The delegation pool of ONE run (max_parallel_delegations): nested runs build their own, so no deadlock.

export class RunPool {
  private active = 0;
  private readonly waiters: { grant: () => void }[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`RunPool size must be a positive integer, got ${size}`);
  }

  get inUse(): number {
    return this.active;
  }

  /** Resolves with a release function; rejects if the signal aborts first (a slot never taken is never released). */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.releaser());
        },
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      this.waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.active--;
    };
  }
}

/** closed → open after `threshold` consecutive failures → half-open after cooldown; allow() IS the probe. */
export class DelegationBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private probing = false;

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {}

  get state(): 'closed' | 'open' | 'half_open' {
    if (this.openedAt === null) return 'closed';
    return this.probing ? 'half_open' : 'open';
  }

  /** Asking moves open → half-open once the cooldown passed and admits exactly one probe. */
  allow(): boolean {
    if (this.threshold <= 0 || this.openedAt === null) return true;
    if (this.probing) return false;
    if (this.now() - this.openedAt < this.cooldownMs) return false;
    this.probing = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.openedAt = null;
    this.probing = false;
  }

  failure(): void {
    this.failures++;
    if (this.probing || (this.threshold > 0 && this.failures >= this.threshold)) {
      this.openedAt = this.now();
      this.probing = false;
    }
  }
}
