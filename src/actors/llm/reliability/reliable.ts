// One provider's reliability wrapper: breaker query → gate slot → per-attempt timeout and silence watch → retries with
// jittered backoff, all inside one call budget; every call, retry, wait and breaker change is an event.
import type { Clock } from '../../../runtime/actor.js';
import type { Event } from '../../../runtime/protocol/index.js';
import { classifyError, LlmError } from '../errors.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';
import type { CircuitBreaker } from './breaker.js';
import { finalError, isLoopbackRefused, type CallTarget, type GiveUpReason } from './final-error.js';
import type { InFlightGate } from './gate.js';
import { SilenceWatch } from './silence-watch.js';
import { perCallSignal } from '../call-signal.js';

export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 30_000;
/** A server on this machine that refused twice is not running; more attempts only make the user wait. */
export const LOOPBACK_REFUSED_ATTEMPTS = 2;
/** Silence between two `llm_waiting` notices of one call (the CLI prints the 1st, 2nd, 4th, … of them). */
export const WAIT_NOTICE_MS = 5000;

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface ReliabilityDeps {
  clock: Clock;
  /** Defaults to a clock-driven sleep that rejects on abort. */
  sleep?: Sleep;
  gate: InFlightGate | null;
  breaker: CircuitBreaker | null;
  /** llm_call_start / llm_retry / llm_call_end / breaker_state go here (absent = silent, unit tests). */
  publish?: (e: Event) => void;
  /** Provider, model, URL and key variable named by the given-up error (default: from the engine's describe()). */
  target?: CallTarget;
  /** The jitter's source, in [0, 1) (tests pin it); default Math.random. */
  random?: () => number;
}

export interface ReliabilityOptions {
  maxRetries: number;
  timeoutMs: number;
  baseDelayMs?: number;
  /** Longest one call may take, attempts and backoff included; 0 = only timeout × attempts bounds it. */
  callBudgetMs?: number;
  /** Silence from the server that ends an attempt ([llm] stream_idle_timeout); 0 = none. */
  idleTimeoutMs?: number;
}

/** Full jitter: anywhere in [0, base × 2^attempt], the ceiling capped at 30 s, so callers that failed together (two
 *  delegations on one server) do not retry together. A server's Retry-After is the floor instead, plus up to one base
 *  delay (never more than the Retry-After itself) to spread those it told the same. */
export function backoffDelay(attempt: number, retryAfterMs: number | undefined, baseMs = BACKOFF_BASE_MS, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) {
    const floor = Math.min(retryAfterMs, BACKOFF_CAP_MS);
    return Math.min(BACKOFF_CAP_MS, Math.round(floor + random() * Math.min(floor, baseMs)));
  }
  return Math.round(random() * Math.min(BACKOFF_CAP_MS, baseMs * 2 ** attempt));
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
  return e.code !== 'CANCELLED' && e.code !== 'BAD_REQUEST' && e.code !== 'CIRCUIT_OPEN' && e.code !== 'CONTEXT_LENGTH' && e.code !== 'ANSWER_TOO_LARGE';
}

/** How one call numbers its attempts among the loop's tries of the step (LlmRequest.attempt). */
interface Numbering {
  before: number;
  total: number;
  step: { step: number } | Record<string, never>;
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
    const { clock } = this.deps;
    const { provider, model } = this.inner.describe();
    const target = this.deps.target ?? { provider, model, url: '' };
    const tier = req.tier !== undefined ? { tier: req.tier } : {};
    const started = clock.now();
    const budget = this.opts.callBudgetMs ?? 0;
    const deadline = budget > 0 ? started + budget : Number.POSITIVE_INFINITY;
    const maxAttempts = this.opts.maxRetries + 1;
    const at = req.attempt;
    const n: Numbering = { before: at?.before ?? 0, total: (at?.before ?? 0) + maxAttempts * Math.max(1, at?.roundsLeft ?? 1), step: at !== undefined ? { step: at.step } : {} };
    const end = (extra: { usage?: LlmResponse['usage']; error?: string }, retries: number, err?: unknown): void =>
      this.emit({ type: 'llm_call_end', agent: req.agent, provider, model, ...tier, durationMs: clock.now() - started, retries, ...extra, ...failureOf(err, target.url) });
    this.emit({ type: 'llm_call_start', agent: req.agent, provider, model, ...tier });
    for (let attempt = 0; ; attempt++) {
      let out: LlmResponse | LlmError;
      try {
        out = await this.attempt(req, Math.max(1, Math.min(this.opts.timeoutMs, deadline - clock.now())), n.before + attempt + 1, n);
      } catch (e) {
        end({ error: e instanceof Error ? e.message : String(e) }, attempt, e);
        throw e;
      }
      if (!(out instanceof LlmError)) {
        end({ usage: out.usage }, attempt);
        req.onUsage?.({ provider: out.provider, model: out.model, usage: out.usage });
        return out;
      }
      const wait = backoffDelay(attempt, out.retryAfterMs, this.opts.baseDelayMs, this.deps.random);
      const why = giveUp(out, attempt + 1, maxAttempts, clock.now() + wait >= deadline, target.url);
      if (why !== null) {
        // a spent budget or a dead local server will not recover in the loop's step retries either
        const err = finalError(out, target, attempt + 1, why, out.retryable && why === 'retries exhausted');
        end({ error: err.message }, attempt, err);
        throw err;
      }
      this.emit({ type: 'llm_retry', agent: req.agent, provider, model, ...n.step, attempt: n.before + attempt + 2, maxAttempts: n.total, waitMs: wait, reason: out.message.split('\n')[0] ?? out.message, ...failureOf(out, target.url) });
      try {
        await this.sleep(wait, req.signal);
      } catch (e) {
        end({ error: 'cancelled' }, attempt + 1, new LlmError('CANCELLED', 'cancelled', false));
        throw e;
      }
    }
  }

  private emit(e: Event): void {
    this.deps.publish?.(e);
  }

  /** Runs a breaker operation and publishes the state it left behind when that differs. */
  private breakerOp(agent: string, op: (b: CircuitBreaker) => unknown): unknown {
    const b = this.deps.breaker;
    if (b === null) return true;
    const before = b.state();
    const r = op(b);
    const after = b.state();
    if (after !== before) this.emit({ type: 'breaker_state', agent, provider: b.provider, state: after });
    return r;
  }

  /** A `llm_waiting` notice of attempt `number` (SilenceWatch.onNotice). */
  private notice(req: LlmRequest, phase: 'slot' | 'answer', number: number, n: Numbering): (waitedMs: number, over: boolean) => void {
    const { provider, model } = this.inner.describe();
    return (waitedMs, over) => this.emit({ type: 'llm_waiting', agent: req.agent, provider, model, phase, waitedMs, ...n.step, attempt: number, maxAttempts: n.total, over });
  }

  /** One attempt; resolves with the response or the classified error (thrown only when cancelled). */
  private async attempt(req: LlmRequest, timeoutMs: number, number: number, n: Numbering): Promise<LlmResponse | LlmError> {
    const { breaker, gate, clock } = this.deps;
    req.signal.throwIfAborted();
    if (this.breakerOp(req.agent, (b) => b.allow()) === false) {
      return new LlmError('CIRCUIT_OPEN', `circuit breaker open for provider "${breaker?.provider ?? ''}"`, false);
    }
    // a free slot is taken at once; only a call that queues watches (and is shown) its wait
    let slot = gate?.tryAcquire() ?? null;
    if (gate !== null && slot === null) {
      // queueing for a slot is a wait the user is shown too, never an idle error (others are being answered)
      const queued = new SilenceWatch(clock, { idleMs: 0, noticeMs: WAIT_NOTICE_MS, onNotice: this.notice(req, 'slot', number, n), onIdle: () => undefined });
      try {
        // queue BEFORE the timeout starts: waiting behind others is not the provider being slow
        slot = await gate.acquire(req.signal);
      } catch (e) {
        this.breakerOp(req.agent, (b) => b.onAbandon());
        throw classifyError(e, { cancelled: true, timedOut: false, now: clock.now() });
      } finally {
        queued.stop();
      }
    }
    // the attempt's own signal: the caller's cancel or this attempt's timeout (a listener, not AbortSignal.any, which
    // costs a weak-ref registry per call and keeps the caller's signal tracking every attempt's)
    const ctl = new AbortController();
    // made for this attempt alone: the engine hands it to the SDK as it is (no linked copy per call)
    perCallSignal(ctl.signal);
    const onCallerAbort = (): void => ctl.abort(req.signal.reason);
    req.signal.addEventListener('abort', onCallerAbort, { once: true });
    if (req.signal.aborted) onCallerAbort(); // a cancel while the slot was being handed over
    let timedOut = false;
    const timer = clock.setTimeout(() => {
      timedOut = true;
      ctl.abort(new LlmError('TIMEOUT', `no response within ${timeoutMs} ms`, true));
    }, timeoutMs);
    const idleMs = this.opts.idleTimeoutMs ?? 0;
    const watch = new SilenceWatch(clock, {
      idleMs,
      noticeMs: WAIT_NOTICE_MS,
      onNotice: this.notice(req, 'answer', number, n),
      onIdle: (silent) => {
        timedOut = true;
        ctl.abort(new LlmError('TIMEOUT', `no byte from the server for ${Math.round(silent / 1000)} s ([llm] stream_idle_timeout)`, true, undefined, undefined, { detail: { idleMs: silent } }));
      },
    });
    const outer = req.onWire;
    try {
      const res = await this.inner.call({
        ...req,
        signal: ctl.signal,
        onWire: () => {
          watch.wire();
          outer?.();
        },
      });
      this.breakerOp(req.agent, (b) => b.onSuccess());
      return res;
    } catch (e) {
      const err = classifyError(e, { cancelled: req.signal.aborted, timedOut, now: clock.now() });
      if (err.code === 'CANCELLED') {
        this.breakerOp(req.agent, (b) => b.onAbandon());
        throw err;
      }
      if (countsForBreaker(err)) this.breakerOp(req.agent, (b) => b.onFailure());
      return err;
    } finally {
      req.signal.removeEventListener('abort', onCallerAbort);
      timer.cancel();
      watch.stop();
      slot?.release();
    }
  }
}

/** The failure fields of llm_retry / llm_call_end (none for a success). */
function failureOf(err: unknown, url: string): { url?: string; code?: string; status?: number; errno?: string } {
  if (err === undefined) return {};
  const e = err instanceof LlmError ? err : null;
  return {
    ...(url !== '' ? { url } : {}),
    ...(e !== null ? { code: e.code } : {}),
    ...(e?.status !== undefined ? { status: e.status } : {}),
    ...(e?.errno !== undefined ? { errno: e.errno } : {}),
  };
}

/** Why this failed attempt is the last one, or null to retry. */
function giveUp(err: LlmError, attempts: number, maxAttempts: number, pastBudget: boolean, url: string): GiveUpReason | null {
  if (!err.retryable) return 'not retryable';
  if (isLoopbackRefused(err, url) && attempts >= LOOPBACK_REFUSED_ATTEMPTS) return 'loopback refused';
  if (attempts >= maxAttempts) return 'retries exhausted';
  if (pastBudget) return 'call budget spent';
  return null;
}
