// Our SSE decoder replaced the SDKs' stream iterators: what they used to handle, pinned through the real
// engines with a model wire that returns crafted bytes (the request itself still goes through the SDK).
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine } from '../../src/actors/llm/engines/anthropic.js';
import { LlmError } from '../../src/actors/llm/errors.js';
import { linkedSignal } from '../../src/actors/llm/engines/sse-decode.js';
import { isPerCallSignal, perCallSignal } from '../../src/actors/llm/call-signal.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { realClock } from '../../src/runtime/clock.js';
import { HttpResponse } from '../../src/actors/llm/transport/http-response.js';
import { FetchHeaders } from '../../src/actors/llm/transport/web-shims.js';
import { providerFor, request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ fallback: { text: ['a', 'b'] } });
});
afterAll(async () => {
  await fake.close();
});

/** A model wire that answers 200 text/event-stream with `wire` cut into the given pieces (bytes). */
function wireFetch(wire: string, cuts: 'whole' | 'bytes' | number = 'whole'): typeof fetch {
  const bytes = new TextEncoder().encode(wire);
  const size = cuts === 'whole' ? bytes.length : cuts === 'bytes' ? 1 : cuts;
  return () =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size));
            c.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream' } },
      ),
    );
}

/** The same wire as our transport answers it (a Node body, read by sse-decode without a web stream): the pieces are all
 *  buffered before the read starts (one socket read of a short answer), or arrive one per event-loop turn. */
function nodeWireFetch(wire: string, size: number, arrival: 'buffered' | 'one by one'): typeof fetch {
  const bytes = Buffer.from(wire, 'utf8');
  return () => {
    const src = new Readable({ read: () => undefined });
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
    if (arrival === 'buffered') {
      for (const p of pieces) src.push(p);
      src.push(null);
    } else {
      const next = (): void => {
        const p = pieces.shift();
        src.push(p ?? null);
        if (p !== undefined) setImmediate(next);
      };
      setImmediate(next);
    }
    return Promise.resolve(new HttpResponse(200, 'OK', new FetchHeaders({ 'content-type': 'text/event-stream' }), 'http://127.0.0.1/', false, src) as unknown as Response);
  };
}

const oa = (fetchFn: typeof fetch) => new OpenAiEngine(providerFor(fake, 'openai'), { fetch: fetchFn });
const an = (fetchFn: typeof fetch) => new AnthropicEngine(providerFor(fake, 'anthropic'), { fetch: fetchFn });

const oaChunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const anEv = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const OA_OK = [oaChunk({ role: 'assistant', content: '' }), oaChunk({ content: 'héllo ' }), oaChunk({ content: '世界 🎉' }), oaChunk({}, 'stop')].join('');
const AN_OK = [
  anEv('message_start', { message: { usage: { input_tokens: 3, output_tokens: 1 } } }),
  anEv('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  anEv('ping', {}),
  anEv('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'héllo ' } }),
  anEv('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '世界 🎉' } }),
  anEv('content_block_stop', { index: 0 }),
  anEv('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }),
  anEv('message_stop', {}),
].join('');

describe('SSE framing', () => {
  it.each(['whole', 'bytes', 7] as const)('events cut at any byte (inside UTF-8 characters too) decode the same: %s', async (cuts) => {
    const deltas: string[] = [];
    const a = await oa(wireFetch(OA_OK, cuts)).call(request('sse', { onTextDelta: (t) => deltas.push(t) }));
    expect(a.text).toBe('héllo 世界 🎉');
    expect(deltas).toEqual(['héllo ', '世界 🎉']);
    const b = await an(wireFetch(AN_OK, cuts)).call(request('sse'));
    expect([b.text, b.finishReason, b.usage.outputTokens]).toEqual(['héllo 世界 🎉', 'stop', 5]);
  });

  it.each([
    [1, 'buffered'],
    [7, 'buffered'],
    [1, 'one by one'],
    [7, 'one by one'],
  ] as const)('a Node body (our transport\'s answers) cut every %s bytes, %s, decodes the same', async (size, arrival) => {
    const deltas: string[] = [];
    const a = await oa(nodeWireFetch(OA_OK, size, arrival)).call(request('sse', { onTextDelta: (t) => deltas.push(t) }));
    expect([a.text, a.finishReason]).toEqual(['héllo 世界 🎉', 'stop']);
    expect(deltas).toEqual(['héllo ', '世界 🎉']);
    const b = await an(nodeWireFetch(AN_OK.replaceAll('\n', '\r'), size, arrival)).call(request('sse'));
    expect([b.text, b.finishReason, b.usage.outputTokens]).toEqual(['héllo 世界 🎉', 'stop', 5]);
  });

  it('CRLF and lone CR line endings decode like LF', async () => {
    const a = await oa(wireFetch(OA_OK.replaceAll('\n', '\r\n'), 5)).call(request('sse'));
    expect(a.text).toBe('héllo 世界 🎉');
    const b = await an(wireFetch(AN_OK.replaceAll('\n', '\r'), 5)).call(request('sse'));
    expect(b.text).toBe('héllo 世界 🎉');
  });

  it('multi-line data fields are joined with a newline before JSON parsing', async () => {
    const split = 'data: {"choices":[{"index":0,\ndata: "delta":{"content":"two lines"},"finish_reason":null}]}\n\n';
    const a = await oa(wireFetch(split + oaChunk({}, 'stop'))).call(request('sse'));
    expect(a.text).toBe('two lines');
  });

  it('comments, keep-alives, unknown fields and pings are ignored', async () => {
    const noise = ': keep-alive\n\nretry: 1000\nfoo: bar\n\ndata:\n\n';
    const a = await oa(wireFetch(noise + OA_OK)).call(request('sse'));
    expect(a.text).toBe('héllo 世界 🎉');
    const b = await an(wireFetch(noise + AN_OK)).call(request('sse'));
    expect(b.text).toBe('héllo 世界 🎉');
  });

  it('openai: [DONE] ends the stream; anything after it is ignored', async () => {
    const wire = OA_OK + 'data: [DONE]\n\n' + oaChunk({ content: 'late' }) + 'data: {broken\n\n';
    const a = await oa(wireFetch(wire)).call(request('sse'));
    expect(a.text).toBe('héllo 世界 🎉');
  });

  it('openai: a compatible server that closes after the finish reason without [DONE] still completes', async () => {
    const a = await oa(wireFetch(OA_OK)).call(request('sse'));
    expect(a.finishReason).toBe('stop');
  });

  it('an event without its closing blank line is dropped, so a cut stream is a retryable connection error', async () => {
    const cutOa = OA_OK.slice(0, OA_OK.lastIndexOf('data:')) + oaChunk({}, 'stop').trimEnd();
    const e1 = await oa(wireFetch(cutOa)).call(request('sse')).catch((e: unknown) => e);
    expect([(e1 as LlmError).code, (e1 as LlmError).retryable]).toEqual(['CONNECTION', true]);
    const cutAn = AN_OK.slice(0, AN_OK.lastIndexOf('event: message_stop'));
    const e2 = await an(wireFetch(cutAn)).call(request('sse')).catch((e: unknown) => e);
    expect([(e2 as LlmError).code, (e2 as LlmError).retryable]).toEqual(['CONNECTION', true]);
  });

  it('broken JSON in an event is a SyntaxError (classified as a retryable protocol error)', async () => {
    const e = await oa(wireFetch('data: {"choices":[\n\n')).call(request('sse')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SyntaxError);
  });
});

describe('errors inside a 200 stream', () => {
  it('openai: an error chunk mid-stream fails the call (transient types retryable, invalid requests not)', async () => {
    const mid = oaChunk({ content: 'partial' }) + `data: ${JSON.stringify({ error: { message: 'boom', type: 'server_error' } })}\n\n` + oaChunk({}, 'stop');
    const deltas: string[] = [];
    const e = await oa(wireFetch(mid)).call(request('sse', { onTextDelta: (t) => deltas.push(t) })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LlmError);
    expect([(e as LlmError).code, (e as LlmError).retryable]).toEqual(['SERVER_ERROR', true]);
    expect((e as LlmError).message).toContain('boom');
    expect(deltas).toEqual(['partial']);
    const bad = `data: ${JSON.stringify({ error: { message: 'too long', type: 'invalid_request_error' } })}\n\n`;
    const e2 = await oa(wireFetch(bad)).call(request('sse')).catch((x: unknown) => x);
    expect([(e2 as LlmError).code, (e2 as LlmError).retryable]).toEqual(['BAD_REQUEST', false]);
  });

  it('anthropic: event: error (overloaded, rate limit, non-JSON) fails the call with a classified error', async () => {
    const head = AN_OK.slice(0, AN_OK.indexOf('event: content_block_stop'));
    const cases: [string, string, boolean][] = [
      [JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), 'SERVER_ERROR', true],
      [JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }), 'RATE_LIMITED', true],
      ['not json at all', 'SERVER_ERROR', true],
    ];
    for (const [data, code, retryable] of cases) {
      const e = await an(wireFetch(`${head}event: error\ndata: ${data}\n\n${AN_OK}`)).call(request('sse')).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(LlmError);
      expect([(e as LlmError).code, (e as LlmError).retryable]).toEqual([code, retryable]);
    }
  });
});

describe('signals', () => {
  it.each(['openai', 'anthropic'] as const)('%s: a long-lived caller signal keeps no abort listeners after calls', async (format) => {
    const ac = new AbortController();
    const engine = format === 'openai' ? new OpenAiEngine(providerFor(fake, format)) : new AnthropicEngine(providerFor(fake, format));
    for (let i = 0; i < 5; i++) await engine.call(request(`sig-${format}`, { signal: ac.signal }));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it.each(['openai', 'anthropic'] as const)('%s: the reliability layer’s per-attempt signal goes to the SDK as it is (no linked copy: an AbortSignal and two listener changes per call)', async (format) => {
    const raw = format === 'openai' ? new OpenAiEngine(providerFor(fake, format)) : new AnthropicEngine(providerFor(fake, format));
    const seen: AbortSignal[] = [];
    const inner = { describe: () => raw.describe(), call: (req: Parameters<typeof raw.call>[0]) => (seen.push(req.signal), raw.call(req)) };
    const caller = new AbortController();
    const reliable = new ReliableEngine(inner, { maxRetries: 0, timeoutMs: 60_000 }, { clock: realClock, gate: null, breaker: null });
    const res = await reliable.call(request(`per-call-${format}`, { signal: caller.signal }));
    expect(res.text).toBe('ab');
    const [attempt] = seen;
    expect([seen.length, attempt !== caller.signal, attempt !== undefined && isPerCallSignal(attempt)]).toEqual([1, true, true]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    // the linked copy is skipped for such a signal only: any other caller signal still gets one
    const own = perCallSignal(new AbortController().signal);
    expect(linkedSignal(own).signal).toBe(own);
    const longLived = new AbortController().signal;
    expect(linkedSignal(longLived).signal).not.toBe(longLived);
  });

  it.each(['openai', 'anthropic'] as const)('%s: an abort mid-body rejects with the caller’s reason', async (format) => {
    const agent = `reason-${format}`;
    fake.script(agent, { text: ['a', 'b', 'c', 'd'], chunkDelayMs: 30 });
    const ac = new AbortController();
    const reason = new Error('user pressed escape');
    const engine = format === 'openai' ? new OpenAiEngine(providerFor(fake, format)) : new AnthropicEngine(providerFor(fake, format));
    const p = engine.call(request(agent, { signal: ac.signal, onTextDelta: () => ac.abort(reason) }));
    await expect(p).rejects.toBe(reason);
  });
});
