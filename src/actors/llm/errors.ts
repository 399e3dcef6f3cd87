// LLM failures as data: a stable code, whether a retry can help, the server's Retry-After, the errno.
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
  | 'CONTEXT_LENGTH';

export class LlmError extends Error {
  override readonly name = 'LlmError';
  /** The system error code under the failure (ECONNREFUSED, ENOTFOUND, …), when there was one. */
  readonly errno: string | undefined;
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    readonly status?: number,
    options?: { cause?: unknown; errno?: string | undefined },
  ) {
    super(message, options);
    this.errno = options?.errno;
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

/** HTTP answers: what a status (and the server's words) says about retrying. Context-length and other
 *  answer-specific classes slot in here, before the status fallbacks. */
export function classifyStatus(status: number, msg: string, retryAfter: number | undefined, cause: unknown): LlmError {
  const opts = { cause };
  if (MODEL_NOT_FOUND.test(msg) && status !== 429 && status < 500) return new LlmError('MODEL_NOT_FOUND', msg, false, undefined, status, opts);
  if (status === 429) return new LlmError('RATE_LIMITED', msg, true, retryAfter, status, opts);
  if (status === 408 || status === 409 || status >= 500) return new LlmError('SERVER_ERROR', msg, true, retryAfter, status, opts);
  if (status === 401 || status === 403) return new LlmError('AUTH', msg, false, undefined, status, opts);
  if (status === 404) return new LlmError('NOT_FOUND', msg, false, undefined, status, opts);
  return new LlmError('BAD_REQUEST', msg, false, undefined, status, opts);
}

/** Maps whatever an SDK threw onto an LlmError (duck-typed: both SDKs' errors carry status/headers). */
export function classifyError(err: unknown, opts: { cancelled: boolean; timedOut: boolean; now: number }): LlmError {
  if (err instanceof LlmError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (opts.timedOut) return new LlmError('TIMEOUT', `request timed out: ${msg}`, true, undefined, undefined, { cause: err });
  if (opts.cancelled) return new LlmError('CANCELLED', 'request cancelled', false, undefined, undefined, { cause: err });
  const status = (err as { status?: unknown }).status;
  const overflow = contextLengthError(err, msg, status);
  if (overflow !== null) return overflow;
  if (typeof status === 'number') return classifyStatus(status, msg, parseRetryAfter((err as { headers?: unknown }).headers, opts.now), err);
  if (err instanceof SyntaxError) return new LlmError('PROTOCOL', `malformed stream: ${msg}`, true, undefined, undefined, { cause: err });
  const errno = errnoOf(err);
  if (isInvalidUrl(err, errno)) return new LlmError('INVALID_URL', `invalid URL: ${msg}`, false, undefined, undefined, { cause: err, errno });
  // the socket's own words ("connect ECONNREFUSED 127.0.0.1:4000") say more than the SDK's "Connection error."
  const socket = causes(err).find((e) => e instanceof Error && errno !== undefined && (e as { code?: unknown }).code === errno);
  const text = socket instanceof Error && socket !== err ? `${msg} ${socket.message}` : msg;
  return new LlmError('CONNECTION', text, true, undefined, undefined, { cause: err, errno });
}

const CONTEXT_LENGTH_TEXT = /context_length_exceeded|maximum context length|prompt is too long|context window|too many (input )?tokens|request too large/i;

/** A provider saying "this does not fit" (OpenAI `context_length_exceeded`, Anthropic "prompt is too long",
 *  HTTP 413): a non-retryable CONTEXT_LENGTH the loop answers by compressing, never by a blind retry. */
export function contextLengthError(err: unknown, msg: string, status: unknown): LlmError | null {
  const code = (err as { code?: unknown; error?: { code?: unknown } } | null)?.code ?? (err as { error?: { code?: unknown } } | null)?.error?.code;
  const bad = status === 413 || code === 'context_length_exceeded' || (status === 400 && CONTEXT_LENGTH_TEXT.test(msg));
  if (!bad) return null;
  return new LlmError('CONTEXT_LENGTH', msg, false, undefined, typeof status === 'number' ? status : undefined, { cause: err });
}
