// Server-sent events for /api/events: replay from a seq, then follow; a task stream ends after task_end.
import type { ServerResponse } from 'node:http';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { EventLog } from './event-log.js';

export interface SseOptions {
  taskId: string | undefined;
  since: number;
  /** false = send what is retained and close. */
  follow: boolean;
}

export function streamEvents(res: ServerResponse, log: EventLog, opts: SseOptions): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  res.flushHeaders();
  const write = (env: Envelope): void => {
    res.write(`id: ${env.seq}\nevent: envelope\ndata: ${JSON.stringify(env)}\n\n`);
  };
  let closed = false;
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
  if (!opts.follow) {
    for (const env of log.replay(opts.taskId, opts.since)) write(env);
    finish();
    return;
  }
  const taskId = opts.taskId;
  const off = log.follow(taskId, opts.since, (env) => {
    if (closed) return;
    write(env);
    if (taskId !== undefined && env.payload.type === 'task_end') queueMicrotask(finish);
  });
  unsubscribe = () => {
    off();
  };
  if (closed) unsubscribe();
}
