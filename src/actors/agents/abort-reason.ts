// Abort reasons as stop reasons, and a clock-driven sleep that yields to cancellation.
import type { Clock } from '../../runtime/actor.js';
import type { StopReason } from './wire-types.js';

export type AbortCode = 'IDLE_TIMEOUT' | 'TOTAL_TIMEOUT' | 'PAUSED' | 'CANCELLED';

export class AbortReason extends Error {
  constructor(readonly code: AbortCode, message: string) {
    super(message);
    this.name = 'AbortReason';
  }
}

/** Maps the reason a signal was aborted with to the stop vocabulary; anything unknown is `cancelled`. */
export function abortStopReason(signal: AbortSignal): StopReason {
  const code = (signal.reason as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'IDLE_TIMEOUT':
      return 'idle_timeout';
    case 'TOTAL_TIMEOUT':
      return 'total_timeout';
    case 'PAUSED':
      return 'paused';
    default:
      return 'cancelled';
  }
}

/** Resolves true after ms, false at once if the signal aborts first. */
export function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve(false);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
