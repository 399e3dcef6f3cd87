// Test helpers for the llm area: provider configs pointing at the fake provider (the manual clock is src/runtime/clock.ts).
import { createServer } from 'node:net';
import type { ProviderConfig } from '../../src/runtime/config/index.js';
import type { LlmRequest } from '../../src/actors/llm/types.js';
import type { FakeProvider } from '../../src/actors/llm/fake/server.js';

export function providerFor(fake: FakeProvider, format: 'openai' | 'anthropic', extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    name: extra.name ?? `fake-${format}`,
    model: 'fake-model',
    apiBaseUrl: format === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl,
    apiKey: 'test-key',
    apiFormat: format,
    contextWindow: undefined,
    temperature: undefined,
    maxTokens: undefined,
    reasoningEffort: undefined,
    fallbackProviders: [],
    ...extra,
  };
}

export function request(agent: string, extra: Partial<LlmRequest> = {}): LlmRequest {
  return {
    messages: [
      { role: 'system', content: 'you are a test' },
      { role: 'user', content: 'hello' },
    ],
    tools: [],
    signal: new AbortController().signal,
    agent,
    ...extra,
  };
}

/** A loopback port that was free a moment ago and now has no listener: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
