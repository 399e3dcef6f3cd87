// The body of an error answer, kept beside its headers: the SDKs build their error from the body's `error` field
// only, so a server that puts its fields at the top level (vLLM before mid 2025: `{"object":"error","message":…}`)
// would leave nothing but "400 status code (no body)". errors.ts reads it back through the error's `headers`.
const bodies = new WeakMap<object, string>();

/** What is kept of one error body (its opening says what went wrong; the rest may echo the request). */
export const ERROR_BODY_KEEP_CHARS = 64 * 1024;

export function rememberErrorBody(headers: object, text: string): void {
  bodies.set(headers, text.slice(0, ERROR_BODY_KEEP_CHARS));
}

/** The remembered body of the answer these headers came with, if the transport kept one. */
export function errorBodyOf(headers: unknown): string | undefined {
  return typeof headers === 'object' && headers !== null ? bodies.get(headers) : undefined;
}
