// The fake's llama.cpp flavour against what a real llama-server sent (fixtures/llama-server-b11669.json, captured from
// llama-server 0.7.0 b11669 with curl -N), and yagent's engine reading those very bytes through the real SDK.
import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { LlmError } from '../../src/actors/llm/errors.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { resolveWindow } from '../../src/actors/llm/window/context-window.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { createHttpFetch } from '../../src/actors/llm/transport/http-fetch.js';
import type { ToolDef } from '../../src/runtime/protocol/index.js';
import { providerFor, request } from './helpers.js';

interface Fixture {
  streamHeaders: Record<string, string>;
  streams: { text: string[]; toolCalls: string[]; textWithoutUsage: string[] };
  info: { models: unknown; props: { default_generation_settings: { n_ctx: number }; total_slots: number; build_info: string } };
  errors: { overflow: { status: number; headers: Record<string, string>; body: unknown }; badKey: { status: number; headers: Record<string, string>; body: unknown }; kvFullFrame: string };
}
const real = JSON.parse(readFileSync(new URL('./fixtures/llama-server-b11669.json', import.meta.url), 'utf8')) as Fixture;

/** A JSON value's shape: objects by sorted key, arrays by their elements' shapes, leaves by type. */
function shape(v: unknown): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) return [...new Set(v.map((x) => JSON.stringify(shape(x))))].map((s) => JSON.parse(s) as unknown);
  if (typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape((v as Record<string, unknown>)[k])]));
  return typeof v;
}

/** A stream's frames as shapes, runs of the same shape as one (token counts differ, the sequence does not). */
function shapes(frames: string[]): string[] {
  const out: string[] = [];
  for (const f of frames) {
    const data = f.replace(/^data: /, '').trim();
    const s = data === '[DONE]' ? '[DONE]' : JSON.stringify(shape(JSON.parse(data)));
    if (out[out.length - 1] !== s) out.push(s);
  }
  return out;
}

const readFile: ToolDef = { name: 'read_file', description: 'read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp', model: '/models/wire-probe.gguf' });
});
afterAll(async () => {
  await fake.close();
});

/** One POST on a connection of its own (the flavour drops a connection a stream was answered on, as the server does),
 *  asking to keep it alive: whether the answer closes it is the server's choice. */
async function post(agent: string, body: unknown): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const pool = new Agent({ keepAlive: true });
  return new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = httpRequest(`${fake.openaiBaseUrl}/chat/completions`, { method: 'POST', agent: pool, headers: { 'content-type': 'application/json', 'x-yagent-agent': agent } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  }).finally(() => pool.destroy());
}

async function rawStream(agent: string, includeUsage = true): Promise<{ headers: IncomingHttpHeaders; frames: string[] }> {
  const { headers, text } = await post(agent, { model: 'm', stream: true, stream_options: { include_usage: includeUsage }, messages: [{ role: 'user', content: 'hi' }] });
  return { headers, frames: text.split('\n\n').filter((f) => f.trim() !== '').map((f) => `${f}\n\n`) };
}

describe('the llama.cpp flavour sends what llama-server b11669 sends', () => {
  it('a text answer: the same chunk shapes in the same order, usage chunk with timings, then [DONE]', async () => {
    fake.script('text', { text: ['list', ' for', '"', ' with'] });
    const { frames } = await rawStream('text');
    expect(shapes(frames)).toEqual(shapes(real.streams.text));
  });

  it('two tool calls: id, type, name and the first piece of the arguments in one delta, then argument pieces', async () => {
    fake.script('calls', { toolCalls: [{ name: 'read_file', arguments: '{"path": "a"}' }, { name: 'read_file', arguments: '{"path": "b"}' }] });
    const { frames } = await rawStream('calls');
    expect(shapes(frames)).toEqual(shapes(real.streams.toolCalls));
    const first = JSON.parse(frames[1]!.slice(6)) as { choices: { delta: { tool_calls: { id: string }[] } }[] };
    expect(first.choices[0]!.delta.tool_calls[0]!.id).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it('without include_usage: no usage at all, the timings ride on the finish chunk', async () => {
    fake.script('no-usage', { text: ['a', 'b'], finishReason: 'length' });
    const { frames } = await rawStream('no-usage', false);
    expect(shapes(frames)).toEqual(shapes(real.streams.textWithoutUsage));
  });

  it('the stream headers: text/event-stream without a charset, keep-alive announced, no Connection header', async () => {
    fake.script('headers', { text: 'x' });
    const { headers } = await rawStream('headers');
    for (const k of ['server', 'content-type', 'keep-alive', 'x-accel-buffering']) expect(headers[k]).toBe(real.streamHeaders[k]);
    expect(headers['cache-control']).toBeUndefined();
  });

  it('a wrong key: 401 with its body, and the connection is closed', async () => {
    fake.script('key', { fault: { kind: 'status', status: 401, message: 'Invalid API Key' } });
    const res = await post('key', { messages: [] });
    expect(res.status).toBe(real.errors.badKey.status);
    expect(JSON.parse(res.text)).toEqual(real.errors.badKey.body);
    expect(res.headers['connection']).toBe('close');
  });

  it('an overflow: the same 400 body, and the connection is closed', async () => {
    fake.script('over', { fault: { kind: 'overflow', promptTokens: 3408, window: 2048 } });
    const res = await post('over', { messages: [] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual(real.errors.overflow.body);
    expect(res.headers['connection']).toBe('close');
  });
});

describe('the llama.cpp flavour answers the window probe as llama-server b11669 does', () => {
  it('GET /v1/models: the same shape (an Ollama-style `models` list beside `data`, meta.n_ctx); GET /props: 4 slots', async () => {
    const f = await FakeProvider.start({ flavour: 'llama.cpp', model: '/models/wire-probe.gguf', window: 2048 });
    try {
      const get = async (path: string): Promise<unknown> => (await fetch(`${f.url}${path}`)).json();
      expect(shape(await get('/v1/models'))).toEqual(shape(real.info.models));
      const props = (await get('/props')) as typeof real.info.props;
      expect([props.default_generation_settings.n_ctx, props.total_slots, props.build_info]).toEqual([2048, real.info.props.total_slots, real.info.props.build_info]);
    } finally {
      await f.close();
    }
  });
});

describe('a llama-server started with --api-key', () => {
  it('the window probe and the call carry the key; a wrong key is AUTH with the server\'s words, never retried', async () => {
    const f = await FakeProvider.start({ flavour: 'llama.cpp', model: 'm', window: 8192, apiKey: 'k' });
    try {
      f.script('keyed', { text: 'ok' }, { text: 'never' });
      const httpFetch = createHttpFetch();
      expect(await resolveWindow(providerFor(f, 'openai', { apiKey: 'k' }), httpFetch)).toEqual({ tokens: 8192, source: 'llama.cpp /props n_ctx' });
      expect((await new OpenAiEngine(providerFor(f, 'openai', { apiKey: 'k' }), { fetch: httpFetch }).call(request('keyed'))).text).toBe('ok');
      const inner = new OpenAiEngine(providerFor(f, 'openai', { apiKey: 'wrong', name: 'local' }), { fetch: httpFetch });
      const slept: number[] = [];
      const reliable = new ReliableEngine(inner, { maxRetries: 3, timeoutMs: 5000 }, { clock: new ManualClock(Date.now()), gate: null, breaker: null, sleep: async (ms) => void slept.push(ms) });
      const err = await reliable.call(request('keyed')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect([(err as LlmError).code, (err as LlmError).status, slept]).toEqual(['AUTH', 401, []]);
      expect((err as LlmError).message).toContain('not retryable: 401 Invalid API Key');
      expect((err as LlmError).message).toContain('fix: check the API key');
      expect(await resolveWindow(providerFor(f, 'openai', { apiKey: 'wrong' }), httpFetch)).not.toHaveProperty('tokens');
    } finally {
      await f.close();
    }
  });
});

describe("yagent's engine reads the real server's bytes (replayed)", () => {
  let server: Server;
  let url = '';
  let next: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, real.streamHeaders);
        for (const f of next) res.write(f);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });
  const engine = (): OpenAiEngine => new OpenAiEngine({ ...providerFor(fake, 'openai'), apiBaseUrl: `${url}/v1`, apiKey: '' }, { fetch: createHttpFetch() });

  it('a text answer: the text, the finish and the usage with the server-side cache hits', async () => {
    next = real.streams.text;
    const res = await engine().call(request('replay'));
    expect(res.text).toBe('list for" with');
    expect(res.finishReason).toBe('stop');
    expect(res.usage).toEqual({ inputTokens: 211, outputTokens: 5, cachedInputTokens: 210, reasoningTokens: 0 });
  });

  it('two tool calls: both whole, with their ids and JSON arguments', async () => {
    next = real.streams.toolCalls;
    const res = await engine().call(request('replay', { tools: [readFile] }));
    expect(res.finishReason).toBe('tool_calls');
    expect(res.toolCalls.map((c) => [c.id, c.name])).toEqual([
      ['vnxh7CCeKcrgCXOPIvTYy8uCaBIUt21q', 'read_file'],
      ['bq8RhE3nH2HCk8KMIFJo73xwM39EhXdv', 'read_file'],
    ]);
    expect(res.toolCalls.map((c) => (JSON.parse(c.arguments) as { path: string }).path)).toEqual([', it in', '']);
    expect(res.text).toBe('');
  });
});
