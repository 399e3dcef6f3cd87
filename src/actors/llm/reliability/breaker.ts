// Process-wide circuit breaker per provider in shared memory: closed → open → half-open with one probe.
// The query is the probe: allow() itself moves open → half-open and admits exactly that caller.
import { LLM_SHARED_LAYOUT as L, sharedViews } from '../../../runtime/config/index.js';

export type BreakerState = 'closed' | 'open' | 'half-open';
const CLOSED = 0;
const OPEN = 1;
const HALF_OPEN = 2;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h === 0 ? 1 : h | 0;
}

export class CircuitBreaker {
  private readonly i32: Int32Array;
  private readonly openedAt: BigInt64Array;
  private readonly base: number;
  private readonly slot: number;

  constructor(
    sab: SharedArrayBuffer,
    readonly provider: string,
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {
    const v = sharedViews(sab);
    this.i32 = v.i32;
    this.openedAt = v.openedAt;
    this.slot = claimSlot(this.i32, fnv1a(provider));
    this.base = L.BREAKER_BASE + this.slot * L.BREAKER_WORDS;
  }

  state(): BreakerState {
    const s = Atomics.load(this.i32, this.base + 1);
    return s === OPEN ? 'open' : s === HALF_OPEN ? 'half-open' : 'closed';
  }

  /** May this call go out? Open past its cooldown turns half-open and admits this caller as the probe. */
  allow(): boolean {
    if (this.threshold <= 0) return true;
    const s = Atomics.load(this.i32, this.base + 1);
    if (s === CLOSED) return true;
    if (s === HALF_OPEN) return false;
    const since = this.now() - Number(Atomics.load(this.openedAt, this.slot));
    if (since < this.cooldownMs) return false;
    return Atomics.compareExchange(this.i32, this.base + 1, OPEN, HALF_OPEN) === OPEN;
  }

  onSuccess(): void {
    if (this.threshold <= 0) return;
    Atomics.store(this.i32, this.base + 2, 0);
    Atomics.store(this.i32, this.base + 1, CLOSED);
  }

  onFailure(): void {
    if (this.threshold <= 0) return;
    const s = Atomics.load(this.i32, this.base + 1);
    if (s === HALF_OPEN) {
      this.open(HALF_OPEN);
      return;
    }
    const n = Atomics.add(this.i32, this.base + 2, 1) + 1;
    if (n >= this.threshold) this.open(CLOSED);
  }

  /** A probe that ended without an outcome (cancelled) hands the probe back: next query probes again. */
  onAbandon(): void {
    if (this.threshold <= 0) return;
    Atomics.compareExchange(this.i32, this.base + 1, HALF_OPEN, OPEN);
  }

  private open(from: number): void {
    Atomics.store(this.openedAt, this.slot, BigInt(Math.floor(this.now())));
    if (Atomics.compareExchange(this.i32, this.base + 1, from, OPEN) === from) Atomics.store(this.i32, this.base + 2, 0);
  }
}

/** Linear probing over the slots by name hash, so every thread maps a provider to the same slot. */
function claimSlot(i32: Int32Array, hash: number): number {
  for (let k = 0; k < L.BREAKER_SLOTS; k++) {
    const slot = (Math.abs(hash) + k) % L.BREAKER_SLOTS;
    const at = L.BREAKER_BASE + slot * L.BREAKER_WORDS;
    const prev = Atomics.compareExchange(i32, at, 0, hash);
    if (prev === 0 || prev === hash) return slot;
  }
  throw new Error('shared LLM state: more than 64 providers with breakers');
}
