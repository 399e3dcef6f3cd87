// Issue 22: `yagent serve`'s event stream has per-client backpressure and sends a streamed answer once to a client
// catching up. 200 clients with 100 not reading a 1 MB answer grew the server by 1379 MB; a 4 MB answer with 100
// stalled clients by 5.5 GB, and it stopped answering. The check is bounded and event-driven: what each response
// holds in its own buffer (`writableLength`) once every reading client has the whole stream.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../bin/server/event-log.js';
import { coalesce, streamEvents } from '../../bin/server/sse-stream.js';
import type { Envelope, Event } from '../../src/runtime/protocol/index.js';

let seq = 0;
const env = (payload: Event, taskId = 't'): Envelope => ({ seq: ++seq, taskId, delegationId: null, source: 'director', type: payload.type, lane: 'normal', ts: 0, payload });
const MB = 1 << 20;
const ANSWER = 'a'.repeat(MB);

/** A task whose answer streams in 16 chunks, then is repeated whole by ai_response, conversation_result and task_end. */
function answer(log: EventLog): void {
  log.append(env({ type: 'ai_stream_start', agent: 'director', step: 1 }));
  for (let i = 0; i < 16; i++) log.append(env({ type: 'ai_chunk', agent: 'director', text: ANSWER.slice(i * (MB / 16), (i + 1) * (MB / 16)) }));
  log.append(env({ type: 'ai_stream_end', agent: 'director' }));
  log.append(env({ type: 'ai_response', agent: 'director', text: ANSWER }));
  log.append(env({ type: 'conversation_result', agent: 'director', text: ANSWER, stopReason: 'plain_text' }));
  log.append(env({ type: 'task_end', stopReason: 'plain_text', text: ANSWER }));
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** An HTTP server streaming `log` (task `t`, followed) and the responses it holds. */
async function server(log: EventLog): Promise<{ port: number; responses: ServerResponse[] }> {
  const responses: ServerResponse[] = [];
  const s = createServer((req, res) => {
    responses.push(res);
    streamEvents(res, log, { taskId: new URL(req.url ?? '/', 'http://x').searchParams.get('task') ?? undefined, since: 0, follow: true });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  close = () => {
    s.closeAllConnections();
    return new Promise((r) => s.close(() => r()));
  };
  return { port: (s.address() as AddressInfo).port, responses };
}

/** A client that sends its request and never reads. */
function stalled(port: number): Socket {
  const sock = connect(port, '127.0.0.1');
  sock.write('GET /?task=t HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  sock.pause();
  return sock;
}

/** A client that reads the whole stream (until the server ends it). */
async function reader(port: number, since = 0): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/?task=t&since=${since}`);
  return res.text();
}

const count = (hay: string, needle: string): number => hay.split(needle).length - 1;

describe('serve event stream', () => {
  it('a client that does not read holds at most one frame in the server, however much follows; readers get everything', async () => {
    const log = new EventLog();
    const { port, responses } = await server(log);
    const stalledClients = Array.from({ length: 20 }, () => stalled(port));
    const readers = [reader(port), reader(port)];
    // every client's response exists before the answer is appended
    await new Promise<void>((resolve) => {
      const check = (): void => void (responses.length === 22 ? resolve() : setImmediate(check));
      check();
    });
    for (let i = 0; i < 5; i++) answer(log);
    const texts = await Promise.all(readers);
    for (const t of texts) expect(count(t, '"payload":{"type":"task_end"')).toBe(5);
    // without backpressure each stalled one held the whole stream minus what the kernel took (~ 5 × 4 MB)
    const held = responses.map((r) => r.writableLength);
    expect(held.filter((h) => h > MB + 64 * 1024)).toEqual([]);
    expect(responses.filter((r) => !r.writableEnded)).toHaveLength(20); // the stalled ones are still open, waiting
    for (const s of stalledClients) s.destroy();
  });

  it('a client catching up gets the streamed answer once (no chunks before its ai_response, no text in task_end)', async () => {
    const log = new EventLog();
    answer(log);
    const { port } = await server(log);
    const text = await reader(port);
    expect(count(text, '"payload":{"type":"ai_chunk"')).toBe(0);
    expect(count(text, '"payload":{"type":"ai_response"')).toBe(1);
    expect(count(text, '"payload":{"type":"task_end"')).toBe(1);
    // ai_response (the TUI's answer) and conversation_result (attach's): was 4 copies with the chunks and task_end
    expect(count(text, ANSWER)).toBe(2);
  });

  it('coalesce keeps the chunks of a stream that has no ai_response yet, and of every other stream', () => {
    const e = (p: Event, source = 'director'): Envelope => ({ ...env(p), source });
    const backlog = [
      e({ type: 'ai_stream_start', agent: 'director', step: 1 }),
      e({ type: 'ai_chunk', agent: 'director', text: 'x' }),
      e({ type: 'ai_response', agent: 'director', text: 'x' }),
      e({ type: 'ai_stream_start', agent: 'director', step: 2 }),
      e({ type: 'ai_chunk', agent: 'director', text: 'y' }),
      e({ type: 'ai_chunk', agent: 'coding', text: 'z' }, 'coding'),
    ];
    expect(coalesce(backlog).map((x) => x.payload.type)).toEqual(['ai_stream_start', 'ai_response', 'ai_stream_start', 'ai_chunk', 'ai_chunk']);
  });
});
