// A provider's "this does not fit" is a typed, non-retryable CONTEXT_LENGTH: the loop compresses, nobody retries blindly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine } from '../../src/actors/llm/engines/anthropic.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { LlmError, classifyError } from '../../src/actors/llm/errors.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { providerFor, request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start();
});
afterAll(async () => {
  await fake.close();
});

function wrap(format: 'openai' | 'anthropic'): { engine: ReliableEngine; slept: number[] } {
  const slept: number[] = [];
  const inner = format === 'openai' ? new OpenAiEngine(providerFor(fake, format)) : new AnthropicEngine(providerFor(fake, format));
  const clock = new ManualClock(Date.now()); // never advanced: the request timeout never fires
  const engine = new ReliableEngine(inner, { maxRetries: 3, timeoutMs: 5000 }, { clock, gate: null, breaker: null, sleep: async (ms) => void slept.push(ms) });
  return { engine, slept };
}

const OVERFLOWS = [
  { format: 'openai', status: 400, message: "This model's maximum context length is 8192 tokens (context_length_exceeded)" },
  { format: 'anthropic', status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' },
  { format: 'openai', status: 413, message: 'Request Entity Too Large' },
] as const;

describe('context-length errors', () => {
  it.each(OVERFLOWS)('$format $status "$message" is CONTEXT_LENGTH and is not retried', async ({ format, status, message }) => {
    const agent = `overflow-${format}-${status}`;
    fake.script(agent, { fault: { kind: 'status', status, message } }, { text: 'never' });
    const { engine, slept } = wrap(format);
    const err = await engine.call(request(agent)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('CONTEXT_LENGTH');
    expect((err as LlmError).retryable).toBe(false);
    expect(slept).toEqual([]);
    expect(fake.requestsFor(agent)).toHaveLength(1);
  });

  it('an ordinary 400 stays BAD_REQUEST', () => {
    const e = classifyError(Object.assign(new Error('invalid tool schema'), { status: 400 }), { cancelled: false, timedOut: false, now: 0 });
    expect(e.code).toBe('BAD_REQUEST');
  });
});
