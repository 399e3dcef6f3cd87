// BrowserError: a failure of a browser action the model can act on; `kind` becomes the tool result's error kind.
export type BrowserErrorKind =
  | 'browser_unavailable'
  | 'browser_launch_failed'
  | 'browser_crashed'
  | 'browser_closed'
  | 'timeout'
  | 'cancelled'
  | 'bad_url'
  | 'navigation_failed'
  | 'no_history'
  | 'no_such_ref'
  | 'stale_ref'
  | 'not_actionable'
  | 'bad_key'
  | 'cdp_error';

export class BrowserError extends Error {
  override readonly name = 'BrowserError';
  constructor(
    readonly kind: BrowserErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** By name, not instanceof (the shape is what the tools read). */
export function isBrowserError(e: unknown): e is BrowserError {
  return (e as { name?: unknown } | null)?.name === 'BrowserError' && typeof (e as { kind?: unknown }).kind === 'string';
}
