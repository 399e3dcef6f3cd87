// Decodes an SSE response body straight into a callback (the SDKs' nested async generators cost ~2× a raw read).
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { LlmError } from '../errors.js';
import { nodeBodyOf } from '../transport/http-response.js';
import { errorRecord, isKvCacheFull, messageOf, readOverflow } from '../server-answers.js';
import type { LlmRequest } from '../types.js';
import { traceOnce } from '../../../runtime/trace.js';
import { AGENT_HEADER, CALL_HEADER, callSignalHeader } from './common.js';
import { isPerCallSignal } from '../call-signal.js';

const noRelease = (): void => undefined;

/** One decoded SSE event; `event` is undefined for the default "message" type. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** A single event larger than this is a broken server, not a reply (tool arguments come in many small events). */
export const SSE_MAX_EVENT_CHARS = 32 * 1024 * 1024;

/** Bytes in, whole events out: split UTF-8 and CR line endings handled, an oversized event refused. */
function sseFeed(onEvent: (ev: SseEvent) => void): { write(chunk: Uint8Array): void; end(): void } {
  // a holder, not a `let`: the parser's callback sets it, which control-flow narrowing cannot see
  const state: { overflow: LlmError | null } = { overflow: null };
  const parser = createParser({
    // the parser's message already has the SseEvent shape (plus `id`, unused): no copy per event
    onEvent: (m: EventSourceMessage) => onEvent(m as SseEvent),
    onError: (e) => {
      // unknown fields and bad `retry:` values are ignored, as the SSE spec says
      if (e.type === 'max-buffer-size-exceeded') state.overflow = new LlmError('PROTOCOL', `malformed stream: ${e.message}`, true);
    },
    maxBufferSize: SSE_MAX_EVENT_CHARS,
  });
  // StringDecoder keeps split UTF-8 sequences like TextDecoder's stream mode, at a fraction of its cost
  const decoder = new StringDecoder('utf8');
  let endsInCr = false;
  return {
    write(chunk) {
      const text = decoder.write(chunk);
      if (text !== '') endsInCr = text.endsWith('\r');
      parser.feed(text);
      if (state.overflow !== null) throw state.overflow;
    },
    end() {
      const tail = decoder.end();
      if (tail !== '') {
        endsInCr = tail.endsWith('\r');
        parser.feed(tail);
      }
      // a lone CR is a whole line ending, but the parser waits for a possible LF after it: at EOF there is none.
      // An event without its closing blank line stays incomplete and is dropped (SSE spec; the SDKs do the same)
      if (endsInCr) parser.feed('\n');
    },
  };
}

/**
 * Reads an answer's body to its end, handing every complete event to `onEvent` synchronously.
 * Reading to the end (not stopping at the terminal event) lets the connection go back to the keep-alive pool.
 * Whatever `onEvent` throws ends the read, closes the request and propagates. `onBytes` hears of every chunk read (the
 * silence watch). Our transport's answers are read as the Node stream they are (no web stream per call); any other
 * Response (a test's fetch) through its web stream.
 */
export function readSse(res: { readonly body: ReadableStream<Uint8Array> | null }, onEvent: (ev: SseEvent) => void, onBytes?: () => void): Promise<void> {
  const node = nodeBodyOf(res);
  return node !== null ? readNode(node, sseFeed(onEvent), onBytes) : readWeb(res.body, sseFeed(onEvent), onBytes);
}

function readNode(src: Readable, feed: ReturnType<typeof sseFeed>, onBytes: (() => void) | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (e: unknown): void => {
      if (settled) return;
      settled = true;
      src.off('readable', onReadable);
      if (e === null) resolve();
      else {
        // stopping early must close the request, or the socket stays busy until the server gives up
        src.destroy();
        reject(e);
      }
    };
    // paused mode: one read takes everything buffered as one chunk, so a short answer that came in one socket read
    // (a tool call: ~9 events, each its own chunk of the chunked encoding) is one decode and one parser feed, not one
    // flowing-mode read, 'data' emit and feed per event (~30 µs of a cold thread's CPU per event: issue 29's gap)
    const onReadable = (): void => {
      for (let chunk: Buffer | null = src.read() as Buffer | null; chunk !== null && !settled; chunk = src.read() as Buffer | null) {
        onBytes?.();
        try {
          feed.write(chunk);
        } catch (e) {
          settle(e);
        }
      }
    };
    src.on('readable', onReadable);
    src.once('error', settle);
    src.once('end', () => {
      try {
        feed.end();
        settle(null);
      } catch (e) {
        settle(e);
      }
    });
    // a body closed without its end and without an error of its own (fetch's body would error the same way); the error
    // is made only then: every body closes after its end, and an Error's stack costs ~10 µs
    src.once('close', () => {
      if (!settled) settle(Object.assign(new Error('the answer ended before its end'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

async function readWeb(body: ReadableStream<Uint8Array> | null, feed: ReturnType<typeof sseFeed>, onBytes: (() => void) | undefined): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onBytes?.();
      feed.write(value);
    }
    finished = true;
    feed.end();
  } finally {
    // stopping early must close the request, or the socket stays busy until the server gives up
    if (!finished) await reader.cancel().catch(() => undefined); // best-effort: the caller already has its error
    reader.releaseLock();
  }
}

/** Parses one event's JSON; a broken payload is a retryable protocol error (classifyError maps SyntaxError so). */
export function parseData(data: string): unknown {
  return JSON.parse(data) as unknown;
}

/** Narrowing helpers for decoded chunks: the hot path checks shapes by hand (a schema per event costs more than the read). */
export function rec(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * An error reported inside a 200 stream (OpenAI `{"error":…}` chunks, Anthropic `event: error`, llama-server's
 * `{"error":{"code":500,…}}`). An overflow is CONTEXT_LENGTH with the window it names; overload/server/rate-limit
 * errors are transient (a full KV cache among them, with its own fix line); an invalid request stays invalid.
 */
export function streamError(payload: unknown): LlmError {
  const err = errorRecord(payload);
  const type = str(err?.['type']) ?? str(err?.['code']) ?? '';
  const message = messageOf(err) || (typeof payload === 'string' ? payload : JSON.stringify(payload));
  const text = `stream error${type !== '' ? ` (${type})` : ''}: ${message}`;
  const overflow = readOverflow(err, message, undefined);
  if (overflow !== null) return new LlmError('CONTEXT_LENGTH', text, false, undefined, undefined, { detail: overflow });
  if (type.includes('rate_limit')) return new LlmError('RATE_LIMITED', text, true);
  if (type === 'invalid_request_error') return new LlmError('BAD_REQUEST', text, false, undefined, 400);
  if (type === 'authentication_error' || type === 'permission_error') return new LlmError('AUTH', text, false);
  if (isKvCacheFull(message)) return new LlmError('SERVER_ERROR', text, true, undefined, undefined, { detail: { kvCacheFull: true } });
  return new LlmError('SERVER_ERROR', text, true);
}

/**
 * A per-call signal linked to the caller's: the SDKs hang a listener on whatever signal they get and do not
 * always remove it, so they get this short-lived one and a long-lived caller signal stays clean.
 */
export function linkedSignal(outer: AbortSignal): { signal: AbortSignal; release(): void } {
  // a signal made for this call alone (the reliability layer's per attempt) collects nothing across calls
  if (isPerCallSignal(outer)) return { signal: outer, release: noRelease };
  const ctl = new AbortController();
  if (outer.aborted) {
    ctl.abort(outer.reason);
    return { signal: ctl.signal, release: noRelease };
  }
  const onAbort = (): void => ctl.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return { signal: ctl.signal, release: () => outer.removeEventListener('abort', onAbort) };
}

/** What an SDK's streaming `create()` gives back: the raw response is read here, not through its generators. */
interface SdkCall {
  asResponse(): Promise<Response>;
}

/** One streaming request: the SDK builds, authenticates and sends it (and turns non-2xx into errors); its SSE body is
 *  decoded into `onEvent`. An abort surfaces as the caller's reason (e.g. the timeout), whatever the reader threw. The
 *  signal goes to the transport by the call's header, not through the SDK (callSignalHeader). */
export async function streamRequest(req: Pick<LlmRequest, 'signal' | 'agent' | 'onWire'>, send: (opts: { headers: Record<string, string> }) => SdkCall, onEvent: (ev: SseEvent) => void): Promise<void> {
  const link = linkedSignal(req.signal);
  const call = callSignalHeader(link.signal);
  try {
    traceOnce('first model request sent');
    const res = await send({ headers: { [AGENT_HEADER]: req.agent, [CALL_HEADER]: call.header } }).asResponse();
    req.onWire?.();
    await readSse(res, onEvent, req.onWire);
  } catch (e) {
    req.signal.throwIfAborted();
    throw e;
  } finally {
    call.release();
    link.release();
  }
  req.signal.throwIfAborted();
}
