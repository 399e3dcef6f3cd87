// LLM failures as data: a stable code, whether a retry can help, and the server's Retry-After.
export type LlmErrorCode =
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'TIMEOUT'
  | 'CONNECTION'
  | 'PROTOCOL'
  | 'CANCELLED'
  | 'BAD_REQUEST'
  | 'AUTH'
  | 'CIRCUIT_OPEN'
  /** The request does not fit the model's context: compress, never retry unchanged. */
  | 'CONTEXT_LENGTH';

export class LlmError extends Error {
  override readonly name = 'LlmError';
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Retry-After as seconds or an HTTP date; `retry-after-ms` wins when present. */
export function parseRetryAfter(headers: unknown, now: number): number | undefined {
  const get = (k: string): string | null => {
    if (headers instanceof Headers) return headers.get(k);
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

/** Maps whatever an SDK threw onto an LlmError (duck-typed: both SDKs' errors carry status/headers). */
export function classifyError(err: unknown, opts: { cancelled: boolean; timedOut: boolean; now: number }): LlmError {
  if (err instanceof LlmError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (opts.timedOut) return new LlmError('TIMEOUT', `request timed out: ${msg}`, true, undefined, undefined, { cause: err });
  if (opts.cancelled) return new LlmError('CANCELLED', 'request cancelled', false, undefined, undefined, { cause: err });
  const status = (err as { status?: unknown }).status;
  const overflow = contextLengthError(err, msg, status);
  if (overflow !== null) return overflow;
  if (typeof status === 'number') {
    const retryAfter = parseRetryAfter((err as { headers?: unknown }).headers, opts.now);
    if (status === 429) return new LlmError('RATE_LIMITED', msg, true, retryAfter, status, { cause: err });
    if (status === 408 || status === 409 || status >= 500) return new LlmError('SERVER_ERROR', msg, true, retryAfter, status, { cause: err });
    if (status === 401 || status === 403) return new LlmError('AUTH', msg, false, undefined, status, { cause: err });
    return new LlmError('BAD_REQUEST', msg, false, undefined, status, { cause: err });
  }
  if (err instanceof SyntaxError) return new LlmError('PROTOCOL', `malformed stream: ${msg}`, true, undefined, undefined, { cause: err });
  return new LlmError('CONNECTION', msg, true, undefined, undefined, { cause: err });
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
