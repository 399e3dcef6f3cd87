// The one way to report a failure that does not stop the run: a `log` event at warn level (the CLI's log sink
// writes it to logs/app-*.jsonl, `--verbose` mirrors it to stderr). Never swallow with `.catch(() => undefined)`.
import type { EventOf } from './protocol/index.js';

export type LogEvent = EventOf<'log'>;

/** `source` names the call that failed (`recordTimeline`, `listNotes`, …); `what` says what is now missing. */
export function warnEvent(source: string, what: string, err: unknown): LogEvent {
  const reason = err instanceof Error ? err.message : typeof err === 'object' && err !== null && 'message' in err ? String((err as { message: unknown }).message) : String(err);
  return { type: 'log', level: 'warn', source, message: `${what}: ${reason}` };
}

/** Publishes `warnEvent(...)` through any publish function (an actor's, the runtime's). */
export function publishWarning(publish: (event: LogEvent) => void, source: string, what: string, err: unknown): void {
  publish(warnEvent(source, what, err));
}
