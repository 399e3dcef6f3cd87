// An answer that stops at its output limit inside a tool call's arguments (issue 23 item 2), through the real SDKs
// against the llama.cpp flavour, which answers 500 for history arguments that are not JSON: the call is marked cut,
// the history carries a valid stand-in, and a server's 500 that names our request's shape is not retried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine } from '../../src/actors/llm/engines/anthropic.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { LlmError } from '../../src/actors/llm/errors.js';
import { realClock } from '../../src/runtime/clock.js';
import type { ChatMessage } from '../../src/runtime/protocol/index.js';
import { providerFor, request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp' });
});
afterAll(async () => {
  await fake.close();
});

function wrap(format: 'openai' | 'anthropic'): { engine: ReliableEngine; slept: number[] } {
  const slept: number[] = [];
  const inner = format === 'openai' ? new OpenAiEngine(providerFor(fake, format)) : new AnthropicEngine(providerFor(fake, format));
  const engine = new ReliableEngine(inner, { maxRetries: 5, timeoutMs: 20_000 }, { clock: realClock, gate: null, breaker: null, sleep: async (ms) => void slept.push(ms) });
  return { engine, slept };
}

const CUT = '{"path":"big.txt","content":"line 1\\nline 2\\nline';

describe.each(['openai', 'anthropic'] as const)('%s: a tool call cut by the length limit', (format) => {
  it('is marked cut, a complete call beside it stands, and the history sends a valid stand-in the server accepts', async () => {
    const agent = `cut-${format}`;
    const whole = JSON.stringify({ path: 'small.txt', content: 'ok' });
    fake.script(agent, { toolCalls: [{ id: 'c1', name: 'create_file', arguments: whole }, { id: 'c2', name: 'create_file', arguments: CUT }], finishReason: 'length' }, { text: 'next' });
    const { engine } = wrap(format);
    const first = await engine.call(request(agent));
    expect(first.finishReason).toBe('length');
    expect(first.toolCalls.map((c) => [c.arguments, c.truncated])).toEqual([
      [whole, undefined],
      [CUT, true],
    ]);
    const history: ChatMessage[] = [
      ...request(agent).messages,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      ...first.toolCalls.map((c): ChatMessage => ({ role: 'tool', toolCallId: c.id, name: c.name, content: 'result' })),
    ];
    expect((await engine.call(request(agent, { messages: history }))).text).toBe('next');
    const sent = fake.requestsFor(agent)[1]?.body as { messages: { tool_calls?: { function: { arguments: string } }[]; content?: unknown }[] };
    if (format === 'openai') {
      expect(sent.messages.find((m) => m.tool_calls)?.tool_calls?.map((t) => t.function.arguments)).toEqual([whole, '{}']);
    } else {
      const uses = (sent.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as { type: string; input?: unknown }[]).filter((b) => b.type === 'tool_use');
      expect(uses.map((b) => b.input)).toEqual([{ path: 'small.txt', content: 'ok' }, {}]);
    }
  });
});

describe('a server answer that names our request’s shape', () => {
  it('llama-server’s 500 "Failed to parse tool call arguments as JSON" is not retried and says what was wrong', async () => {
    const agent = 'shape-500';
    fake.script(agent, { fault: { kind: 'status', status: 500, message: 'Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 40' } }, { text: 'never' });
    const { engine, slept } = wrap('openai');
    const err = (await engine.call(request(agent)).catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect([err.code, err.retryable, err.status, slept, fake.requestsFor(agent).length]).toEqual(['BAD_REQUEST', false, 500, [], 1]);
    expect(err.detail.requestFault).toBe('the arguments of a tool call in the conversation history are not valid JSON');
    expect(err.message).toContain('could not read our request: the arguments of a tool call in the conversation history are not valid JSON');
    expect(err.message).not.toContain('the provider is failing');
  });

  it('the llama.cpp flavour itself refuses a history with broken arguments sent raw (what the stand-in avoids)', async () => {
    const res = await fetch(`${fake.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: CUT } }] }] }),
    });
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('Failed to parse tool call arguments as JSON');
  });
});
