// Layout of the process-wide LLM state (in-flight gate + circuit breakers) in one SharedArrayBuffer.
// Lives in the runtime layer so the supervisor can create it; src/actors/llm reads and writes it.
export const LLM_SHARED_KEY = 'llm';

export const LLM_SHARED_LAYOUT = {
  /** Int32 indices. */
  MAGIC: 0,
  GATE_IN_FLIGHT: 1,
  GATE_LIMIT: 2,
  GATE_WAKE: 3,
  BREAKER_BASE: 8,
  /** Int32 words per breaker slot: [nameHash, state, consecutiveFailures, reserved]. */
  BREAKER_WORDS: 4,
  BREAKER_SLOTS: 64,
  MAGIC_VALUE: 0x59414c4d,
} as const;

const INT32_WORDS = LLM_SHARED_LAYOUT.BREAKER_BASE + LLM_SHARED_LAYOUT.BREAKER_SLOTS * LLM_SHARED_LAYOUT.BREAKER_WORDS;
/** Byte offset of the BigInt64 region holding each breaker's openedAt (ms). */
export const BREAKER_OPENED_AT_OFFSET = Math.ceil((INT32_WORDS * 4) / 8) * 8;
const BYTES = BREAKER_OPENED_AT_OFFSET + LLM_SHARED_LAYOUT.BREAKER_SLOTS * 8;

/** One buffer per supervisor process; hand it to every actor as ctx.shared[LLM_SHARED_KEY]. */
export function createSharedLlmState(opts: { maxInFlightRequests: number }): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(BYTES);
  const i32 = new Int32Array(sab, 0, INT32_WORDS);
  Atomics.store(i32, LLM_SHARED_LAYOUT.GATE_LIMIT, Math.max(0, opts.maxInFlightRequests));
  Atomics.store(i32, LLM_SHARED_LAYOUT.MAGIC, LLM_SHARED_LAYOUT.MAGIC_VALUE);
  return sab;
}

export function sharedViews(sab: SharedArrayBuffer): { i32: Int32Array; openedAt: BigInt64Array } {
  const i32 = new Int32Array(sab, 0, INT32_WORDS);
  if (Atomics.load(i32, LLM_SHARED_LAYOUT.MAGIC) !== LLM_SHARED_LAYOUT.MAGIC_VALUE) {
    throw new Error('shared LLM state: buffer was not made by createSharedLlmState');
  }
  return { i32, openedAt: new BigInt64Array(sab, BREAKER_OPENED_AT_OFFSET, LLM_SHARED_LAYOUT.BREAKER_SLOTS) };
}
