// LLM failures as data: a stable code, whether a retry can help, the server's Retry-After, the errno, and what the
// server's answer told (its window on an overflow, the part of our request it could not read, a full KV cache).
import { errorRecord, isKvCacheFull, messageOf, readOverflow, requestFault } from './server-answers.js';
import { errorBodyOf } from './transport/error-bodies.js';
export type LlmErrorCode =
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'TIMEOUT'
  | 'CONNECTION'
  | 'PROTOCOL'
  | 'CANCELLED'
  | 'BAD_REQUEST'
  | 'AUTH'
  | 'NOT_FOUND'
  | 'MODEL_NOT_FOUND'
  | 'INVALID_URL'
  | 'CIRCUIT_OPEN'
  /** The request does not fit the model's context: compress, never retry unchanged. */
  | 'CONTEXT_LENGTH'
  /** One streamed answer passed `[llm] max_answer_chars`: the read stopped there and the answer was not used. */
  | 'ANSWER_TOO_LARGE';

/** What the server's answer told beyond its status (documented in AGENTS.md, *Error details*); every field optional. */
export interface LlmErrorDetail {
  /** CONTEXT_LENGTH: the server's context window in tokens, when its answer says it (llama.cpp `n_ctx`, vLLM and
   *  OpenAI "maximum context length is N", LM Studio `n_ctx`, Anthropic "> N maximum"). */
  contextWindow?: number;
  /** CONTEXT_LENGTH: the request's size in tokens as the server counted it (llama.cpp `n_prompt_tokens`, …). */
  promptTokens?: number;
  /** BAD_REQUEST: the part of our request the server could not read (a 400 or a 500 that names it: not retried). */
  requestFault?: string;
  /** SERVER_ERROR: llama-server's KV cache, shared by its parallel slots, filled mid-answer ("Context size has been
   *  exceeded."): retried with jitter, and its own fix line. */
  kvCacheFull?: true;
  /** ANSWER_TOO_LARGE: the cap on one streamed answer, in characters. */
  answerCapChars?: number;
  /** TIMEOUT: the attempt ended after this much silence from the server ([llm] stream_idle_timeout). */
  idleMs?: number;
}

export class LlmError extends Error {
  override readonly name = 'LlmError';
  /** The system error code under the failure (ECONNREFUSED, ENOTFOUND, …), when there was one. */
  readonly errno: string | undefined;
  readonly detail: LlmErrorDetail;
  /** Requests the call made before it gave up (finalError sets it; 1 for one attempt's error). */
  readonly attempts: number;
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    readonly status?: number,
    options?: { cause?: unknown; errno?: string | undefined; detail?: LlmErrorDetail; attempts?: number },
  ) {
    super(message, options);
    this.errno = options?.errno;
    this.detail = options?.detail ?? {};
    this.attempts = options?.attempts ?? 1;
  }
}

/** Retry-After as seconds or an HTTP date; `retry-after-ms` wins when present. */
export function parseRetryAfter(headers: unknown, now: number): number | undefined {
  const get = (k: string): string | null => {
    // any Headers (ours or undici's), by shape: `instanceof Headers` would load undici (transport/web-shims.ts)
    if (typeof (headers as { get?: unknown } | null)?.get === 'function') return (headers as { get(k: string): string | null }).get(k);
    if (typeof headers === 'object' && headers !== null) {
      const v = (headers as Record<string, unknown>)[k];
      return typeof v === 'string' ? v : null;
    }
    return null;
  };
  const ms = get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = get('retry-after');
  if (ra === null) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The causes under an SDK error (fetch wraps the socket error; a dual-stack connect wraps several). */
function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 16) {
    const e = queue.shift();
    if (e === null || e === undefined || out.includes(e)) continue;
    out.push(e);
    if (typeof e === 'object') {
      queue.push((e as { cause?: unknown }).cause);
      const inner = (e as { errors?: unknown }).errors;
      if (Array.isArray(inner)) queue.push(...(inner as unknown[]));
    }
  }
  return out;
}

/** The first system error code in the cause chain (ECONNREFUSED, ENOTFOUND, ERR_INVALID_URL, …). */
export function errnoOf(err: unknown): string | undefined {
  for (const e of causes(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|ERR_[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
  }
  return undefined;
}

/** A URL fetch refuses before any connection (malformed, unknown scheme, blocked port), or a redirect to another
 *  origin the transport will not follow (src/actors/llm/transport): no retry can help. */
function isInvalidUrl(err: unknown, errno: string | undefined): boolean {
  if (errno === 'ERR_INVALID_URL' || errno === 'ERR_REDIRECT_CROSS_ORIGIN') return true;
  return causes(err).some((e) => e instanceof Error && /^(invalid url|unknown scheme|bad port)$/i.test(e.message));
}

const MODEL_NOT_FOUND = /model\b.*\b(not found|does not exist|not exist|unknown|is not available)|no such model|unknown model/i;

/** HTTP answers: what a status (and the server's words) says about retrying. Answer-specific classes (overflow,
 *  request shape, KV cache) come first, then the status fallbacks. `record` is the server's error object. */
export function classifyStatus(status: number, msg: string, retryAfter: number | undefined, cause: unknown, record?: Record<string, unknown>): LlmError {
  const opts = { cause };
  const said = `${msg} ${messageOf(record)}`;
  const overflow = readOverflow(record, msg, status);
  if (overflow !== null) return new LlmError('CONTEXT_LENGTH', msg, false, undefined, status, { cause, detail: overflow });
  const fault = status !== 429 ? requestFault(said) : null;
  if (fault !== null) return new LlmError('BAD_REQUEST', `the server could not read our request: ${fault} (it said: ${msg})`, false, undefined, status, { cause, detail: { requestFault: fault } });
  if (MODEL_NOT_FOUND.test(msg) && status !== 429 && status < 500) return new LlmError('MODEL_NOT_FOUND', msg, false, undefined, status, opts);
  if (status === 429) return new LlmError('RATE_LIMITED', msg, true, retryAfter, status, opts);
  if (status >= 500 && isKvCacheFull(said)) return new LlmError('SERVER_ERROR', msg, true, retryAfter, status, { cause, detail: { kvCacheFull: true } });
  if (status === 408 || status === 409 || status >= 500) return new LlmError('SERVER_ERROR', msg, true, retryAfter, status, opts);
  if (status === 401 || status === 403) return new LlmError('AUTH', msg, false, undefined, status, opts);
  if (status === 404) return new LlmError('NOT_FOUND', msg, false, undefined, status, opts);
  return new LlmError('BAD_REQUEST', msg, false, undefined, status, opts);
}

/** The server's error object behind an SDK error: its `error` field, else the body the transport kept (error-bodies.ts). */
function serverRecord(err: unknown): Record<string, unknown> | undefined {
  const fromSdk = errorRecord((err as { error?: unknown } | null)?.error);
  if (fromSdk !== undefined) return fromSdk;
  const kept = errorBodyOf((err as { headers?: unknown } | null)?.headers);
  if (kept === undefined) return undefined;
  try {
    return errorRecord(JSON.parse(kept) as unknown);
  } catch {
    return kept.trim() !== '' ? { message: kept } : undefined;
  }
}

/** Maps whatever an SDK threw onto an LlmError (duck-typed: both SDKs' errors carry status/headers). */
export function classifyError(err: unknown, opts: { cancelled: boolean; timedOut: boolean; now: number }): LlmError {
  if (err instanceof LlmError) return err;
  let msg = err instanceof Error ? err.message : String(err);
  if (opts.timedOut) return new LlmError('TIMEOUT', `request timed out: ${msg}`, true, undefined, undefined, { cause: err });
  if (opts.cancelled) return new LlmError('CANCELLED', 'request cancelled', false, undefined, undefined, { cause: err });
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') {
    const record = serverRecord(err);
    // an SDK that found no `error` field says "status code (no body)": the body's own words say more
    const said = messageOf(record);
    if (said !== '' && !msg.includes(said.slice(0, 200))) msg = `${status} ${said}`;
    return classifyStatus(status, msg, parseRetryAfter((err as { headers?: unknown }).headers, opts.now), err, record);
  }
  if (err instanceof SyntaxError) return new LlmError('PROTOCOL', `malformed stream: ${msg}`, true, undefined, undefined, { cause: err });
  const errno = errnoOf(err);
  if (isInvalidUrl(err, errno)) return new LlmError('INVALID_URL', `invalid URL: ${msg}`, false, undefined, undefined, { cause: err, errno });
  // the socket's own words ("connect ECONNREFUSED 127.0.0.1:4000") say more than the SDK's "Connection error."
  const socket = causes(err).find((e) => e instanceof Error && errno !== undefined && (e as { code?: unknown }).code === errno);
  const text = socket instanceof Error && socket !== err ? `${msg} ${socket.message}` : msg;
  return new LlmError('CONNECTION', text, true, undefined, undefined, { cause: err, errno });
}
