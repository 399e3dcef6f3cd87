// AbortSignal chain helpers: task → delegation → LLM call → tool child, each link cancellable on its own.
import type { Clock } from './actor.js';

/** A controller that also aborts when any parent aborts (the chain's one link). */
export function childController(...parents: (AbortSignal | undefined)[]): AbortController {
  const ctl = new AbortController();
  for (const p of parents) {
    if (!p) continue;
    if (p.aborted) {
      ctl.abort(p.reason);
      break;
    }
    const onAbort = (): void => ctl.abort(p.reason);
    p.addEventListener('abort', onAbort, { once: true });
    // Unhook when the child ends first so long-lived parents do not accumulate listeners.
    ctl.signal.addEventListener('abort', () => p.removeEventListener('abort', onAbort), { once: true });
  }
  return ctl;
}

/** A signal that aborts with a TimeoutError-coded error after ms on the given clock, or when a parent aborts. */
export function timeoutSignal(clock: Clock, ms: number, ...parents: (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  cancel(): void;
} {
  const ctl = childController(...parents);
  const timer = clock.setTimeout(() => ctl.abort(codedError('TimeoutError', 'TIMEOUT', `timed out after ${ms} ms`)), ms);
  ctl.signal.addEventListener('abort', () => timer.cancel(), { once: true });
  return { signal: ctl.signal, cancel: () => timer.cancel() };
}

export function codedError(name: string, code: string, message: string, cause?: unknown): Error & { code: string } {
  const e = new Error(message, cause === undefined ? undefined : { cause }) as Error & { code: string };
  e.name = name;
  e.code = code;
  return e;
}

export function isAbortLike(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: unknown }).code === 'ABORT_ERR');
}
