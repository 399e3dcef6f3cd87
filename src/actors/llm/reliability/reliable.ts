// One provider's reliability wrapper: breaker query → gate slot → per-attempt timeout → retries with backoff.
import type { Clock } from '../../../runtime/actor.js';
import { classifyError, LlmError } from '../errors.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';
import type { CircuitBreaker } from './breaker.js';
import type { InFlightGate } from './gate.js';

export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 30_000;

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface ReliabilityDeps {
  clock: Clock;
  /** Defaults to a clock-driven sleep that rejects on abort. */
  sleep?: Sleep;
  gate: InFlightGate | null;
  breaker: CircuitBreaker | null;
}

export interface ReliabilityOptions {
  maxRetries: number;
  timeoutMs: number;
  baseDelayMs?: number;
}

/** Exponential backoff capped at 30 s; a server's Retry-After replaces it (same cap). */
export function backoffDelay(attempt: number, retryAfterMs: number | undefined, baseMs = BACKOFF_BASE_MS): number {
  const d = retryAfterMs ?? baseMs * 2 ** attempt;
  return Math.min(d, BACKOFF_CAP_MS);
}

export function clockSleep(clock: Clock): Sleep {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        t.cancel();
        reject(signal.reason as Error);
      };
      const t = clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}

/** Failures that say something about the provider's health (a bad request or a cancel does not). */
function countsForBreaker(e: LlmError): boolean {
  return e.code !== 'CANCELLED' && e.code !== 'BAD_REQUEST' && e.code !== 'CIRCUIT_OPEN' && e.code !== 'CONTEXT_LENGTH';
}

export class ReliableEngine implements LlmEngine {
  private readonly sleep: Sleep;
  constructor(
    private readonly inner: LlmEngine,
    private readonly opts: ReliabilityOptions,
    private readonly deps: ReliabilityDeps,
  ) {
    this.sleep = deps.sleep ?? clockSleep(deps.clock);
  }

  describe(): { provider: string; model: string } {
    return this.inner.describe();
  }

  async call(req: LlmRequest): Promise<LlmResponse> {
    for (let attempt = 0; ; attempt++) {
      const err = await this.attempt(req);
      if (!(err instanceof LlmError)) return err;
      if (!err.retryable || attempt >= this.opts.maxRetries) throw err;
      await this.sleep(backoffDelay(attempt, err.retryAfterMs, this.opts.baseDelayMs), req.signal);
    }
  }

  /** One attempt; resolves with the response or the classified error (thrown only when cancelled while queued). */
  private async attempt(req: LlmRequest): Promise<LlmResponse | LlmError> {
    const { breaker, gate, clock } = this.deps;
    req.signal.throwIfAborted();
    if (breaker !== null && !breaker.allow()) {
      return new LlmError('CIRCUIT_OPEN', `circuit breaker open for provider "${breaker.provider}"`, false);
    }
    let slot;
    try {
      // queue BEFORE the timeout starts: waiting behind others is not the provider being slow
      slot = gate !== null ? await gate.acquire(req.signal) : null;
    } catch (e) {
      breaker?.onAbandon();
      throw classifyError(e, { cancelled: true, timedOut: false, now: clock.now() });
    }
    const ctl = new AbortController();
    let timedOut = false;
    const timer = clock.setTimeout(() => {
      timedOut = true;
      ctl.abort(new LlmError('TIMEOUT', `no response within ${this.opts.timeoutMs} ms`, true));
    }, this.opts.timeoutMs);
    try {
      const res = await this.inner.call({ ...req, signal: AbortSignal.any([req.signal, ctl.signal]) });
      breaker?.onSuccess();
      return res;
    } catch (e) {
      const err = classifyError(e, { cancelled: req.signal.aborted, timedOut, now: clock.now() });
      if (err.code === 'CANCELLED') {
        breaker?.onAbandon();
        throw err;
      }
      if (countsForBreaker(err)) breaker?.onFailure();
      return err;
    } finally {
      timer.cancel();
      slot?.release();
    }
  }
}
