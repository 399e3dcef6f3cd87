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

function wrap(format: 'openai' | 'anthropic', opts: { maxRetries?: number; timeoutMs?: number; random?: () => number } = {}) {
  const slept: number[] = [];
  const inner = format === 'openai' ? new OpenAiEngine(providerFor(fake, format)) : new AnthropicEngine(providerFor(fake, format));
  const engine = new ReliableEngine(
    inner,
    { maxRetries: opts.maxRetries ?? 3, timeoutMs: opts.timeoutMs ?? 5000 },
    // the jitter pinned at its top: each wait is the backoff's ceiling
    { clock: realClock, gate: null, breaker: null, sleep: async (ms) => void slept.push(ms), random: opts.random ?? (() => 1) },
  );
  return { engine, slept };
}

describe.each(['openai', 'anthropic'] as const)('%s faults', (format) => {
  it('429 is retried after the Retry-After the server sent', async () => {
    const agent = `${format}-429`;
    fake.script(agent, { fault: { kind: 'status', status: 429, retryAfter: 7 } }, { text: 'ok' });
    const { engine, slept } = wrap(format, { random: () => 0 });
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

it('backoff: full jitter under a ceiling that doubles from 1 s and is capped at 30 s; Retry-After is the floor', () => {
  const top = (): number => 1;
  const none = (): number => 0;
  expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, undefined, 1000, top))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  expect([0, 3, 6].map((a) => backoffDelay(a, undefined, 1000, none))).toEqual([0, 0, 0]);
  expect(backoffDelay(3, undefined, 1000, () => 0.25)).toBe(2000);
  // Retry-After: never earlier than the server asked, spread by up to one base delay (never more than itself)
  expect([backoffDelay(0, 7000, 1000, none), backoffDelay(0, 7000, 1000, top)]).toEqual([7000, 8000]);
  expect([backoffDelay(0, 300, 1000, top), backoffDelay(0, 0, 1000, top)]).toEqual([600, 0]);
  expect(backoffDelay(0, 90_000, 1000, top)).toBe(30_000);
  expect(backoffDelay(3, 1500, 1000, none)).toBe(1500);
});

it('two calls that fail together on the same server do not retry at the same instants (full jitter, item 5)', async () => {
  // two parallel delegations whose shared KV cache filled: the same error at the same moment, two random draws
  const draws = [0.13, 0.71, 0.42, 0.96];
  let i = 0;
  const random = (): number => draws[i++ % draws.length] ?? 0.5;
  const kv = { text: ['a'], fault: { kind: 'kv_full' as const, afterEvents: 1 } };
  fake.script('jitter-a', kv, kv, { text: 'a done' });
  fake.script('jitter-b', kv, kv, { text: 'b done' });
  const a = wrap('openai', { random });
  const b = wrap('openai', { random });
  const [ra, rb] = await Promise.all([a.engine.call(request('jitter-a')), b.engine.call(request('jitter-b'))]);
  expect([ra.text, rb.text]).toEqual(['a done', 'b done']);
  expect(a.slept).toHaveLength(2);
  expect(b.slept).toHaveLength(2);
  expect(a.slept.some((ms, k) => ms !== b.slept[k])).toBe(true);
  expect([...a.slept, ...b.slept].every((ms) => ms >= 0 && ms <= 2000)).toBe(true);
});

it('invalid JSON in tool arguments reaches the caller raw (the tool adapter reports it to the model)', async () => {
  fake.script('bad-args', { toolCalls: [{ id: 'x', name: 'grep', arguments: '{"a":' }] });
  const res = await wrap('openai').engine.call(request('bad-args'));
  expect(res.toolCalls[0]?.arguments).toBe('{"a":');
});
