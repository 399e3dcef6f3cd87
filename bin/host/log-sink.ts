// The log sink: one dispatcher consumer turns events into log lines and sends them to the store in batches
// (the store is the only writer of ~/.yagent/logs/); warn+ lines and model_info are mirrored to stderr under --verbose.
import type { Clock, Remote } from '../../src/runtime/actor.js';
import { realClock } from '../../src/runtime/clock.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { LogLine, StoreApi } from '../../src/store/api.js';
import { isThoughtWarning, LOGGED_EVENT_TYPES, logLinesFor, mirrorText } from './log-lines.js';

/** Lines wait this long for the lines after them before they go to the store: a quick run's steps share one store
 *  message and one write per file instead of one each (the store thread's per-step work competes with the agent's
 *  step on a small machine). close() sends what is held at once. */
export const LOG_BATCH_MS = 100;

export interface LogSink {
  /** Stops consuming, writes every line still queued; resolves when the store has them. */
  close(): Promise<void>;
}

export interface LogSinkOptions {
  runtime: Runtime;
  store: Pick<Remote<StoreApi>, 'appendLogs'>;
  /** Resolves when the store serves (the sink never sends before). */
  storeReady: Promise<unknown>;
  /** `--verbose`: warn and error lines also go here (stderr). */
  mirror?: ((text: string) => void) | undefined;
  /** A failed write is said once here (the files are then incomplete; the run goes on). */
  onFailure: (text: string) => void;
  /** The batch window's timer (tests: a manual clock). */
  clock?: Clock;
}

export function startLogSink(opts: LogSinkOptions): LogSink {
  let buffer: LogLine[] = [];
  let flushing: Promise<void> | null = null;
  let failed = false;
  // a model that never writes <thought> would warn at every step: the log keeps each, stderr says it once
  let thoughtSaid = false;
  // batches form by themselves: lines arriving within LOG_BATCH_MS of the first held one, or while one write is in
  // flight, go out together in the next
  const clock = opts.clock ?? realClock;
  let held: { cancel(): void } | null = null;
  let closing = false;
  const say = (err: unknown): void => {
    if (!failed) opts.onFailure(`yagent: warning: log lines could not be written: ${err instanceof Error ? err.message : String(err)}\n`);
    failed = true;
  };
  // never rejects: a store that failed to start is reported once and the lines are dropped
  const flushLoop = async (): Promise<void> => {
    try {
      await opts.storeReady;
    } catch (err) {
      say(err);
      buffer = [];
      return;
    }
    while (buffer.length > 0) {
      const batch = buffer;
      buffer = [];
      try {
        await opts.store.appendLogs(batch);
      } catch (err) {
        say(err);
      }
    }
  };
  const send = (): void => {
    held?.cancel();
    held = null;
    flushing ??= opts.runtime.tasks.go('log-flush', flushLoop).finally(() => {
      flushing = null;
      if (buffer.length > 0) kick();
    });
  };
  const kick = (): void => {
    if (closing) return send();
    if (flushing !== null || held !== null) return;
    held = clock.setTimeout(send, LOG_BATCH_MS);
  };
  const consumer = opts.runtime.dispatcher.consume({ name: 'log-sink', filter: { types: LOGGED_EVENT_TYPES } }, (env) => {
    const lines = logLinesFor(env);
    const line = lines[0];
    if (line === undefined) return;
    // one event, one mirrored line (a failure's copy in llm-error is not said twice)
    const repeat = isThoughtWarning(env) && thoughtSaid;
    if (isThoughtWarning(env)) thoughtSaid = true;
    if (opts.mirror && !repeat && (line.level === 'warn' || line.level === 'error')) opts.mirror(mirrorText(line));
    // and the window and threshold each agent's run uses
    else if (opts.mirror && line.event === 'model_info') opts.mirror(mirrorText(line, false));
    buffer.push(...lines);
    kick();
  });
  return {
    async close() {
      consumer.mailbox.close();
      await consumer.done;
      closing = true;
      if (buffer.length > 0) send();
      while (flushing !== null) await flushing;
    },
  };
}
