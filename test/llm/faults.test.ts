// Each injected fault through the real SDKs and the reliability wrapper: what is retried, how long it waits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine } from '../../src/actors/llm/engines/anthropic.js';
import { ReliableEngine, backoffDelay } from '../../src/actors/llm/reliability/reliable.js';
import { LlmError } from '../../src/actors/llm/errors.js';
import { providerFor, request } from './helpers.js';
import { realClock } from '../../src/runtime/clock.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start();
});
afterAll(async () => {
  await fake.close();
});

function wrap(format: 'openai' | 'anthropic', opts: { maxRetries?: number; timeoutMs?: number } = {}) {
  const slept: number[] = [];
  const inner = format === 'openai' ? new OpenAiEngine(providerFor(fake, format)) : new AnthropicEngine(providerFor(fake, format));
  const engine = new ReliableEngine(
    inner,
    { maxRetries: opts.maxRetries ?? 3, timeoutMs: opts.timeoutMs ?? 5000 },
    { clock: realClock, gate: null, breaker: null, sleep: async (ms) => void slept.push(ms) },
  );
  return { engine, slept };
}

describe.each(['openai', 'anthropic'] as const)('%s faults', (format) => {
  it('429 is retried after the Retry-After the server sent', async () => {
    const agent = `${format}-429`;
    fake.script(agent, { fault: { kind: 'status', status: 429, retryAfter: 7 } }, { text: 'ok' });
    const { engine, slept } = wrap(format);
    const res = await engine.call(request(agent));
    expect(res.text).toBe('ok');
    expect(slept).toEqual([7000]);
    expect(fake.requestsFor(agent)).toHaveLength(2);
  });

  it('500 is retried with exponential backoff', async () => {
    const agent = `${format}-500`;
    const err = { fault: { kind: 'status' as const, status: 500 } };
    fake.script(agent, err, err, { text: 'ok' });
    const { engine, slept } = wrap(format);
    expect((await engine.call(request(agent))).text).toBe('ok');
    expect(slept).toEqual([1000, 2000]);
  });

  it('a connection reset mid-stream is retried and the retry completes', async () => {
    const agent = `${format}-reset`;
    fake.script(agent, { text: ['a', 'b', 'c'], fault: { kind: 'reset', afterEvents: 2 } }, { text: 'whole' });
    const { engine } = wrap(format);
    expect((await engine.call(request(agent))).text).toBe('whole');
    expect(fake.requestsFor(agent)).toHaveLength(2);
  });

  it('malformed SSE is a retryable protocol error', async () => {
    const agent = `${format}-malformed`;
    fake.script(agent, { text: 'x', fault: { kind: 'malformed' } }, { text: 'fine' });
    const { engine } = wrap(format);
    expect((await engine.call(request(agent))).text).toBe('fine');
    expect(fake.requestsFor(agent)).toHaveLength(2);
  });

  it('a stalled stream hits the request timeout, which is retryable', async () => {
    const agent = `${format}-stall`;
    fake.script(agent, { text: ['a', 'b'], fault: { kind: 'stall', afterEvents: 2 } }, { text: 'after stall' });
    const { engine } = wrap(format, { timeoutMs: 300 });
    expect((await engine.call(request(agent))).text).toBe('after stall');
    expect(fake.requestsFor(agent)[0]?.cancelled).toBe(true);
  });

  it('gives up after max_retries with the last error; 400 is never retried', async () => {
    const agent = `${format}-exhaust`;
    const e500 = { fault: { kind: 'status' as const, status: 503 } };
    fake.script(agent, e500, e500, e500);
    const { engine } = wrap(format, { maxRetries: 2 });
    const err = await engine.call(request(agent)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('SERVER_ERROR');
    expect(fake.requestsFor(agent)).toHaveLength(3);

    const bad = `${format}-400`;
    fake.script(bad, { fault: { kind: 'status', status: 400 } }, { text: 'never' });
    const err2 = await wrap(format).engine.call(request(bad)).catch((e: unknown) => e);
    expect((err2 as LlmError).code).toBe('BAD_REQUEST');
    expect(fake.requestsFor(bad)).toHaveLength(1);
  });
});

it('backoff doubles from 1 s and is capped at 30 s, Retry-After included', () => {
  expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, undefined))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  expect(backoffDelay(0, 90_000)).toBe(30_000);
  expect(backoffDelay(3, 1500)).toBe(1500);
});

it('invalid JSON in tool arguments reaches the caller raw (the tool adapter reports it to the model)', async () => {
  fake.script('bad-args', { toolCalls: [{ id: 'x', name: 'grep', arguments: '{"a":' }] });
  const res = await wrap('openai').engine.call(request('bad-args'));
  expect(res.toolCalls[0]?.arguments).toBe('{"a":');
});
