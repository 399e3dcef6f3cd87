// A provider's "this does not fit" is a typed, non-retryable CONTEXT_LENGTH: the loop compresses, nobody retries blindly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine } from '../../src/actors/llm/engines/anthropic.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { LlmError, classifyError } from '../../src/actors/llm/errors.js';
import { streamError } from '../../src/actors/llm/engines/sse-decode.js';
import { errorRecord, readOverflow } from '../../src/actors/llm/server-answers.js';
import type { ServerFlavour } from '../../src/actors/llm/fake/flavours.js';
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

// Each local server's own overflow answer (src/actors/llm/fake/flavours.ts), through the real OpenAI SDK: recognised
// by type/code or text, never retried, and the window and prompt size kept where the server says them.
const FLAVOURS: { flavour: ServerFlavour; window?: number; prompt?: number }[] = [
  { flavour: 'llama.cpp', window: 6144, prompt: 6248 },
  { flavour: 'vllm', window: 6144, prompt: 6248 },
  { flavour: 'vllm-legacy', window: 6144, prompt: 6248 },
  { flavour: 'lmstudio', window: 6144, prompt: 6248 },
  { flavour: 'ollama' },
  { flavour: 'openai', window: 6144, prompt: 6248 },
];

describe('local servers: context overflow', () => {
  it.each(FLAVOURS)('$flavour: CONTEXT_LENGTH, one request, window $window / prompt $prompt from the body', async ({ flavour, window, prompt }) => {
    const agent = `overflow-flavour-${flavour}`;
    fake.flavour = flavour;
    try {
      fake.script(agent, { fault: { kind: 'overflow', promptTokens: 6248, window: 6144 } }, { text: 'never' });
      const { engine, slept } = wrap('openai');
      const err = (await engine.call(request(agent)).catch((e: unknown) => e)) as LlmError;
      expect([err.code, err.retryable, slept, fake.requestsFor(agent).length]).toEqual(['CONTEXT_LENGTH', false, [], 1]);
      expect(err.detail).toEqual({ ...(window !== undefined ? { contextWindow: window } : {}), ...(prompt !== undefined ? { promptTokens: prompt } : {}) });
      // the user's line says what the server said, not the SDK's "status code (no body)"
      expect(err.message).not.toContain('no body');
      if (window !== undefined) expect(err.message).toContain(`window is ${window} tokens`);
    } finally {
      fake.flavour = 'openai';
    }
  });

  it('a window too small for any first request (llama-server -c 2048) says so, not "the conversation no longer fits"', async () => {
    const agent = 'overflow-tiny-window';
    fake.flavour = 'llama.cpp';
    try {
      fake.script(agent, { fault: { kind: 'overflow', promptTokens: 4121, window: 2048 } });
      const err = (await wrap('openai').engine.call(request(agent)).catch((e: unknown) => e)) as LlmError;
      expect(err.code).toBe('CONTEXT_LENGTH');
      expect(err.message).toContain('fix: a window of 2048 tokens is too small for yagent (this request: 4121)');
      expect(err.message).toContain('give the server a context of 8192 or more (llama.cpp -c');
      expect(err.message).not.toContain('no longer fits');
    } finally {
      fake.flavour = 'openai';
    }
  });

  it('anthropic "prompt is too long" keeps both sizes', async () => {
    const agent = 'overflow-anthropic-sizes';
    fake.script(agent, { fault: { kind: 'overflow', promptTokens: 210000, window: 200000 } });
    const err = (await wrap('anthropic').engine.call(request(agent)).catch((e: unknown) => e)) as LlmError;
    expect([err.code, err.detail]).toEqual(['CONTEXT_LENGTH', { contextWindow: 200000, promptTokens: 210000 }]);
  });

  it('llama-server’s overflow inside a 200 stream is CONTEXT_LENGTH too; its KV-cache error is a retryable server error', () => {
    const inStream = streamError({ error: { code: 400, message: 'request (2358 tokens) exceeds the available context size (2048 tokens), try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 2358, n_ctx: 2048 } });
    expect([inStream.code, inStream.retryable, inStream.detail]).toEqual(['CONTEXT_LENGTH', false, { contextWindow: 2048, promptTokens: 2358 }]);
    const kv = streamError({ error: { code: 500, message: 'Context size has been exceeded.', type: 'server_error' } });
    expect([kv.code, kv.retryable, kv.detail]).toEqual(['SERVER_ERROR', true, { kvCacheFull: true }]);
  });

  it('Ollama passing llama.cpp’s body on as a JSON string, and LM Studio 0.3’s wording, give their sizes', () => {
    const ollama = errorRecord({ error: '{"error":{"code":400,"message":"request (8889 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8889,"n_ctx":4096}}' });
    expect(readOverflow(ollama, '', 400)).toEqual({ contextWindow: 4096, promptTokens: 8889 });
    const lms = 'Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.';
    expect(readOverflow(errorRecord({ error: lms }), '', 400)).toEqual({ contextWindow: 4096, promptTokens: 15857 });
    // a 500 that mentions context is the server's trouble, not an overflow
    expect(readOverflow(errorRecord({ error: { message: 'Context size has been exceeded.' } }), '', 500)).toBeNull();
  });
});
