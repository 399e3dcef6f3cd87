// The process-wide in-flight gate over shared memory: Atomics CAS to take a slot, waitAsync to queue.
// Taken before the request timeout starts; a waiter yields to cancellation and never releases a slot it never got.
import { LLM_SHARED_LAYOUT as L, sharedViews } from '../../../runtime/config/index.js';

type WaitAsync = (a: Int32Array, i: number, v: number, t?: number) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export interface GateSlot {
  /** Idempotent: a slot is given back at most once. */
  release(): void;
}

const NO_SLOT: GateSlot = { release: () => undefined };

export class InFlightGate {
  private readonly i32: Int32Array;
  constructor(sab: SharedArrayBuffer) {
    this.i32 = sharedViews(sab).i32;
  }

  limit(): number {
    return Atomics.load(this.i32, L.GATE_LIMIT);
  }
  inFlight(): number {
    return Atomics.load(this.i32, L.GATE_IN_FLIGHT);
  }

  /** A slot at once when one is free (no promise, no wait: the common case of a call), else null. */
  tryAcquire(): GateSlot | null {
    const i32 = this.i32;
    for (;;) {
      const limit = Atomics.load(i32, L.GATE_LIMIT);
      if (limit <= 0) return NO_SLOT;
      const cur = Atomics.load(i32, L.GATE_IN_FLIGHT);
      if (cur >= limit) return null;
      if (Atomics.compareExchange(i32, L.GATE_IN_FLIGHT, cur, cur + 1) === cur) return this.slot();
    }
  }

  /** Resolves with a slot, or rejects with the signal's reason when cancelled while queued. */
  async acquire(signal: AbortSignal): Promise<GateSlot> {
    const i32 = this.i32;
    for (;;) {
      signal.throwIfAborted();
      // read the wake generation first so a release between the check and the wait is not lost
      const gen = Atomics.load(i32, L.GATE_WAKE);
      const free = this.tryAcquire();
      if (free !== null) return free;
      const w = waitAsync(i32, L.GATE_WAKE, gen);
      if (!w.async) continue;
      await abortable(w.value, signal);
    }
  }

  private slot(): GateSlot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        Atomics.sub(this.i32, L.GATE_IN_FLIGHT, 1);
        Atomics.add(this.i32, L.GATE_WAKE, 1);
        // wake everyone: a woken waiter that was cancelled must not swallow the only notification
        Atomics.notify(this.i32, L.GATE_WAKE);
      },
    };
  }
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T | void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      () => resolve(),
    );
  });
}
