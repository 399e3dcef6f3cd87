// Protocol tests: both wire formats through the real SDKs against the loopback fake provider.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine, THINKING_BUDGETS } from '../../src/actors/llm/engines/anthropic.js';
import { providerFor, request } from './helpers.js';
import { CALL_HEADER } from '../../src/actors/llm/engines/common.js';
import { httpFetch } from '../../src/actors/llm/transport/http-fetch.js';
import { perCallSignal } from '../../src/actors/llm/call-signal.js';
import type { ToolDef } from '../../src/runtime/protocol/index.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start();
});
afterAll(async () => {
  await fake.close();
});

const tools: ToolDef[] = [
  { name: 'write_file', description: 'w', parameters: { type: 'object', properties: {} } },
  { name: 'read_file', description: 'r', parameters: { type: 'object', properties: {} } },
  { name: 'grep', description: 'g', parameters: { type: 'object', properties: {} } },
];

describe.each(['openai', 'anthropic'] as const)('%s engine', (format) => {
  const engine = (extra = {}) =>
    format === 'openai' ? new OpenAiEngine(providerFor(fake, format, extra)) : new AnthropicEngine(providerFor(fake, format, extra));

  it('streams text incrementally and reports usage with cached tokens', async () => {
    const agent = `${format}-text`;
    fake.script(agent, { text: ['Hel', 'lo ', 'world'], usage: { input: 100, output: 7, cached: 40 } });
    const deltas: string[] = [];
    const res = await engine().call(request(agent, { onTextDelta: (t) => deltas.push(t) }));
    expect(deltas).toEqual(['Hel', 'lo ', 'world']);
    expect(res.text).toBe('Hello world');
    expect(res.finishReason).toBe('stop');
    expect(res.usage.outputTokens).toBe(7);
    expect(res.usage.cachedInputTokens).toBe(40);
    expect(res.usage.inputTokens).toBe(format === 'openai' ? 100 : 140);
    expect(fake.requestsFor(agent)[0]?.headers['x-yagent-agent']).toBe(agent);
  });

  it('assembles parallel tool calls split across chunks, keeping invalid JSON raw', async () => {
    const agent = `${format}-tools`;
    fake.script(agent, {
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt","limit":10}' },
        { id: 'c2', name: 'grep', arguments: '{"pattern": "x' },
      ],
    });
    const res = await engine().call(request(agent, { tools }));
    expect(res.finishReason).toBe('tool_calls');
    expect(res.toolCalls).toEqual([
      { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt","limit":10}' },
      { id: 'c2', name: 'grep', arguments: '{"pattern": "x' },
    ]);
  });

  it('sends tool definitions sorted by name', async () => {
    const agent = `${format}-sorted`;
    fake.script(agent, { text: 'ok' });
    await engine().call(request(agent, { tools }));
    const body = fake.requestsFor(agent)[0]?.body as { tools: { name?: string; function?: { name: string } }[] };
    expect(body.tools.map((t) => t.name ?? t.function?.name)).toEqual(['grep', 'read_file', 'write_file']);
  });

  it('the body keeps one key order, what stays the same between calls first (the prompt cache keeps the prefix)', async () => {
    const agent = `${format}-key-order`;
    fake.script(agent, { text: 'a' }, { text: 'b' });
    const history = [...request(agent).messages, { role: 'user' as const, content: 'again' }];
    await engine({ maxTokens: 500, temperature: 0.3, reasoningEffort: 'low' }).call(request(agent, { tools }));
    await engine().call(request(agent, { messages: history }));
    const [a, b] = fake.requestsFor(agent).map((r) => Object.keys(r.body ?? {}));
    if (format === 'openai') {
      expect(a).toEqual(['model', 'stream', 'stream_options', 'tools', 'reasoning_effort', 'messages', 'max_tokens', 'temperature']);
      expect(b).toEqual(['model', 'stream', 'stream_options', 'messages']);
    } else {
      // extended thinking takes no temperature
      expect(a).toEqual(['model', 'stream', 'system', 'tools', 'thinking', 'messages', 'max_tokens']);
      expect(b).toEqual(['model', 'stream', 'system', 'messages', 'max_tokens']);
    }
  });

  it('max_tokens and temperature: call options beat the provider, 0 means not set, else omitted', async () => {
    const agent = `${format}-precedence`;
    fake.script(agent, { text: 'a' }, { text: 'b' }, { text: 'c' });
    await engine({ maxTokens: 500, temperature: 0.3 }).call(request(agent, { maxTokens: 900, temperature: 0.7 }));
    await engine({ maxTokens: 500, temperature: 0.3 }).call(request(agent, { maxTokens: 0 }));
    await engine().call(request(agent));
    const [a, b, c] = fake.requestsFor(agent).map((r) => r.body);
    expect([a?.['max_tokens'], a?.['temperature']]).toEqual([900, 0.7]);
    expect([b?.['max_tokens'], b?.['temperature']]).toEqual([500, 0.3]);
    expect(c?.['temperature']).toBeUndefined();
    // anthropic requires max_tokens, so an unset value falls back to the engine default there
    expect(c?.['max_tokens']).toBe(format === 'openai' ? undefined : 8192);
  });

  it('cancellation aborts the call and the server sees the socket close', async () => {
    const agent = `${format}-cancel`;
    fake.script(agent, { text: ['a', 'b', 'c', 'd', 'e', 'f'], chunkDelayMs: 50 });
    const ac = new AbortController();
    const p = engine().call(request(agent, { signal: ac.signal, onTextDelta: () => ac.abort() }));
    await expect(p).rejects.toThrow();
    // the server learns of the close asynchronously: poll instead of sleeping a fixed time
    await vi.waitFor(() => expect(fake.requestsFor(agent)[0]?.cancelled).toBe(true), { timeout: 20_000, interval: 10 });
  });

  it("the call's own signal reaches the transport, not through the SDK, and the header naming the call is never sent", async () => {
    const agent = `${format}-signal`;
    fake.script(agent, { text: 'ok' });
    const seen: (AbortSignal | null | undefined)[] = [];
    const recording = ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      seen.push(init?.signal);
      return httpFetch(input, init);
    }) as typeof fetch;
    const provider = providerFor(fake, format);
    const e = format === 'openai' ? new OpenAiEngine(provider, { fetch: recording }) : new AnthropicEngine(provider, { fetch: recording });
    // a per-call signal goes as it is (no linked copy): the transport must get this very object
    const signal = perCallSignal(new AbortController().signal);
    expect((await e.call(request(agent, { signal }))).text).toBe('ok');
    expect(seen).toEqual([signal]);
    expect(Object.keys(fake.requestsFor(agent)[0]?.headers ?? {})).not.toContain(CALL_HEADER);
  });
});

describe('reasoning', () => {
  it('openai passes reasoning_effort through and returns reasoning_content', async () => {
    fake.script('oa-think', { reasoning: ['think ', 'hard'], text: 'answer' });
    const seen: string[] = [];
    const res = await new OpenAiEngine(providerFor(fake, 'openai', { reasoningEffort: 'high' })).call(
      request('oa-think', { onReasoningDelta: (t) => seen.push(t) }),
    );
    expect(fake.requestsFor('oa-think')[0]?.body['reasoning_effort']).toBe('high');
    expect(res.reasoning).toEqual([{ text: 'think hard' }]);
    expect(seen.join('')).toBe('think hard');
  });

  it('anthropic maps reasoning_effort to thinking budgets; unknown values leave thinking off', async () => {
    for (const [effort, budget] of Object.entries(THINKING_BUDGETS)) {
      const agent = `an-budget-${effort}`;
      fake.script(agent, { text: 'x' });
      await new AnthropicEngine(providerFor(fake, 'anthropic', { reasoningEffort: effort })).call(request(agent));
      const body = fake.requestsFor(agent)[0]?.body;
      expect(body?.['thinking']).toEqual({ type: 'enabled', budget_tokens: budget });
      expect(body?.['max_tokens']).toBeGreaterThan(budget);
    }
    expect(THINKING_BUDGETS).toEqual({ minimal: 1024, low: 8192, medium: 24576, high: 32000 });
    fake.script('an-budget-weird', { text: 'x' });
    await new AnthropicEngine(providerFor(fake, 'anthropic', { reasoningEffort: 'ultra', temperature: 0.5 })).call(request('an-budget-weird'));
    const body = fake.requestsFor('an-budget-weird')[0]?.body;
    expect(body?.['thinking']).toBeUndefined();
    expect(body?.['temperature']).toBe(0.5);
  });

  it('anthropic keeps thinking blocks with their signature and sends them back first', async () => {
    const agent = 'an-roundtrip';
    fake.script(agent, { reasoning: ['let me ', 'see'], signature: 'sig-123', toolCalls: [{ id: 't1', name: 'grep', arguments: '{}' }] }, { text: 'done' });
    const engine = new AnthropicEngine(providerFor(fake, 'anthropic', { reasoningEffort: 'low' }));
    const first = await engine.call(request(agent, { tools }));
    expect(first.reasoning).toEqual([{ text: 'let me see', signature: 'sig-123' }]);
    const history = [
      ...request(agent).messages,
      { role: 'assistant' as const, content: first.text, toolCalls: first.toolCalls, reasoning: first.reasoning },
      { role: 'tool' as const, toolCallId: 't1', name: 'grep', content: 'no match' },
    ];
    await engine.call(request(agent, { messages: history, tools }));
    const sent = fake.requestsFor(agent)[1]?.body['messages'] as { role: string; content: { type: string; signature?: string }[] }[];
    const assistant = sent.find((m) => m.role === 'assistant');
    expect(assistant?.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(assistant?.content[0]?.signature).toBe('sig-123');
    expect(sent[sent.length - 1]?.content[0]?.type).toBe('tool_result');
  });
});
