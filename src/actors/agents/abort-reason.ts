// Abort reasons as stop reasons (the reason a signal aborted with decides the stop the loop records).
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
