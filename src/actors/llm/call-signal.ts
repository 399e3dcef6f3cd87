// Signals made for one provider call (ReliableEngine's per-attempt signal, released when the attempt ends): an engine
// hands such a signal to the SDK as it is. Any other signal may be long-lived and gets a linked per-call copy
// (engines/sse-decode.ts linkedSignal), which costs an AbortSignal (~4 µs in Node 20) and two listener changes per call.
const perCall = new WeakSet<AbortSignal>();

/** Marks `signal` as made for one call only; answers it. */
export function perCallSignal(signal: AbortSignal): AbortSignal {
  perCall.add(signal);
  return signal;
}

/** Whether `signal` was made for one call only (perCallSignal). */
export function isPerCallSignal(signal: AbortSignal): boolean {
  return perCall.has(signal);
}
