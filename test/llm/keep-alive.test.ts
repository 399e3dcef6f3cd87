// The keep-alive pool against a server that closes the connection after every streamed answer although it announced
// keep-alive (llama-server, issue 23 item 1): the next call is re-sent at once on a fresh socket, never backed off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { createHttpFetch } from '../../src/actors/llm/transport/http-fetch.js';
import { realClock } from '../../src/runtime/clock.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import { providerFor, request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp' });
});
afterAll(async () => {
  await fake.close();
});

function engine(): { engine: ReliableEngine; slept: number[]; events: Event[] } {
  const slept: number[] = [];
  const events: Event[] = [];
  // a pool of its own per test: what one agent's thread has
  const inner = new OpenAiEngine(providerFor(fake, 'openai'), { fetch: createHttpFetch() });
  const e = new ReliableEngine(inner, { maxRetries: 5, timeoutMs: 20_000 }, { clock: realClock, gate: null, breaker: null, sleep: async (ms) => void slept.push(ms), publish: (ev) => void events.push(ev) });
  return { engine: e, slept, events };
}

describe('a server that closes after each streamed answer (llama.cpp flavour)', () => {
  it('back-to-back streamed calls all answer with no retry and no backoff wait', async () => {
    const agent = 'close-after-stream';
    fake.script(agent, ...Array.from({ length: 10 }, (_, i) => ({ text: `answer ${i}` })));
    const { engine: e, slept, events } = engine();
    const before = fake.staleSocketResets;
    const texts: string[] = [];
    for (let i = 0; i < 10; i++) texts.push((await e.call(request(agent))).text);
    expect(texts).toEqual(Array.from({ length: 10 }, (_, i) => `answer ${i}`));
    // the server did drop a reused connection (the behaviour is reproduced) ...
    expect(fake.staleSocketResets - before).toBeGreaterThanOrEqual(1);
    // ... and nobody waited or counted a retry for it
    expect(slept).toEqual([]);
    expect(events.filter((ev) => ev.type === 'llm_retry')).toEqual([]);
    expect(fake.requestsFor(agent)).toHaveLength(10);
    // each call came on a connection of its own: none was answered on a socket the server had given up
    expect(new Set(fake.requestsFor(agent).map((r) => r.connection)).size).toBe(10);
  });

  it('once the origin is seen closing after a stream, its streamed sockets are not pooled: no further doomed write', async () => {
    const agent = 'learned';
    fake.script(agent, ...Array.from({ length: 8 }, () => ({ text: 'ok' })));
    const { engine: e } = engine();
    const before = fake.staleSocketResets;
    for (let i = 0; i < 8; i++) await e.call(request(agent));
    expect(fake.staleSocketResets - before).toBe(1);
  });

  it('a server that keeps its connections sees every call on the same socket and no reset', async () => {
    const keeps = await FakeProvider.start();
    try {
      keeps.script('keeps', ...Array.from({ length: 5 }, () => ({ text: 'ok' })));
      const inner = new OpenAiEngine(providerFor(keeps, 'openai'), { fetch: createHttpFetch() });
      for (let i = 0; i < 5; i++) await inner.call(request('keeps'));
      expect(keeps.staleSocketResets).toBe(0);
      expect(new Set(keeps.requestsFor('keeps').map((r) => r.connection)).size).toBe(1);
    } finally {
      await keeps.close();
    }
  });
});
