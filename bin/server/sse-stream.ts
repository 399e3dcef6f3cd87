// Server-sent events for /api/events: replay from a seq, then follow; a task stream ends after task_end.
// Per-client backpressure (issue 22: 100 clients not reading a 4 MB answer grew the server by 5.5 GB and it stopped
// answering): a client is written to only while its socket takes more (`write` returned true); one that lags is
// served later from the event log, which holds the envelopes anyway, so it costs references, not copies. Each
// envelope is serialised once for every client, and a client catching up gets a streamed answer once: the chunks of a
// stream whose ai_response it is about to receive are skipped (ai_response carries the whole text).
import type { ServerResponse } from 'node:http';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { EventLog } from './event-log.js';

export interface SseOptions {
  taskId: string | undefined;
  since: number;
  /** false = send what is retained and close. */
  follow: boolean;
}

const frames = new WeakMap<Envelope, string>();

/** The SSE frame of an envelope, built once whoever reads it; task_end leaves out the text its task's result sent. */
function frame(log: EventLog, env: Envelope): string {
  let f = frames.get(env);
  if (f === undefined) {
    const p = env.payload;
    const sent = p.type === 'task_end' && p.text !== undefined && p.text === log.resultText(env.taskId);
    const data = sent ? { ...env, payload: { type: p.type, stopReason: p.stopReason } } : env;
    frames.set(env, (f = `id: ${env.seq}\nevent: envelope\ndata: ${JSON.stringify(data)}\n\n`));
  }
  return f;
}

const streamKey = (env: Envelope): string => `${'agent' in env.payload ? env.payload.agent : env.source}#${env.delegationId ?? ''}`;

/** A backlog without the ai_chunk envelopes of streams whose ai_response follows in it (read from the end). */
export function coalesce(backlog: readonly Envelope[]): Envelope[] {
  const answered = new Set<string>();
  const out: Envelope[] = [];
  for (let i = backlog.length - 1; i >= 0; i--) {
    const env = backlog[i] as Envelope;
    const t = env.payload.type;
    const key = streamKey(env);
    if (t === 'ai_response') answered.add(key);
    else if (t === 'ai_stream_start') answered.delete(key);
    else if (t === 'ai_chunk' && answered.has(key)) continue;
    out.push(env);
  }
  return out.reverse();
}

export function streamEvents(res: ServerResponse, log: EventLog, opts: SseOptions): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  res.flushHeaders();
  const taskId = opts.taskId;
  let lastSent = opts.since;
  let closed = false;
  let waiting = false;
  let ending = false;
  let backlog: Envelope[] = [];
  let unsubscribe = (): void => {};
  const finish = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    res.end('event: end\ndata: {}\n\n');
  };
  res.on('close', () => {
    closed = true;
    unsubscribe();
  });
  /** Writes one envelope; false once the socket wants no more for now. */
  const write = (env: Envelope): boolean => {
    lastSent = env.seq;
    if (taskId !== undefined && env.payload.type === 'task_end') ending = true;
    return res.write(frame(log, env));
  };
  /** Drains the backlog (refilled from the log while the client keeps up) until the socket pushes back. */
  const pump = (): void => {
    waiting = false;
    for (;;) {
      if (closed) return;
      if (backlog.length === 0) backlog = coalesce(log.replay(taskId, lastSent));
      const env = backlog.shift();
      if (env === undefined) break;
      if (!write(env)) {
        waiting = true;
        res.once('drain', pump);
        return;
      }
    }
    if (ending || !opts.follow) finish();
  };
  if (!opts.follow) {
    pump();
    return;
  }
  unsubscribe = log.subscribe(taskId, (env) => {
    // a lagging client gets it from the log when its socket drains
    if (closed || waiting || env.seq <= lastSent) return;
    if (backlog.length > 0) return;
    if (!write(env)) {
      waiting = true;
      res.once('drain', pump);
    } else if (ending) queueMicrotask(finish);
  });
  // replay what is retained, then follow: subscribed first, so nothing appended meanwhile is missed
  pump();
  if (closed) unsubscribe();
}
