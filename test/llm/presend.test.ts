// The pre-sent first request (transport/presend.ts, presend-call.ts): the main thread's half sends what the engine's
// own SDK builds; the claiming engine adopts its answer only for the same method, URL and body bytes. Real engines and
// SDKs against the loopback fake provider, both wire formats; the two halves talk over their channel in one thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine } from '../../src/actors/llm/engines/anthropic.js';
import { createPresendState, claimingFetch, PresentOffer } from '../../src/actors/llm/transport/presend.js';
import { presendCall } from '../../src/actors/llm/presend-call.js';
import { httpFetch } from '../../src/actors/llm/transport/http-fetch.js';
import type { ProviderConfig } from '../../src/runtime/config/index.js';
import type { ToolDef } from '../../src/runtime/protocol/index.js';
import { classifyError } from '../../src/actors/llm/errors.js';
import { closedPort, providerFor, request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start();
});
afterAll(async () => {
  await fake.close();
});

const tools: ToolDef[] = [{ name: 'read_file', description: 'r', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
const call = (agent: string, text = 'hello') => ({ messages: [{ role: 'system' as const, content: 'you are a test' }, { role: 'user' as const, content: text }], tools, agent });

/** Polls a condition the fake reaches asynchronously (a closed socket's `close` event), up to 10 s. */
async function eventually(fn: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !fn(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!fn()) throw new Error(`never: ${what}`);
}

/** What the reliability layer makes of a failed call (errors.ts): the class, status and errno the retries and the
 *  error lines are decided on. */
async function classified(p: Promise<unknown>): Promise<Record<string, unknown>> {
  const e = await p.then(() => new Error('the call did not fail'), (err: unknown) => err);
  const c = classifyError(e, { cancelled: false, timedOut: false, now: 0 });
  return { code: c.code, message: c.message, retryable: c.retryable, status: c.status, errno: (c as unknown as { errno?: unknown }).errno };
}

describe.each(['openai', 'anthropic'] as const)('%s: the pre-sent first request', (format) => {
  const engineWith = (p: ProviderConfig, f: typeof fetch) => (format === 'openai' ? new OpenAiEngine(p, { fetch: f }) : new AnthropicEngine(p, { fetch: f }));

  /** An offer of `sent` made the way the CLI's main thread makes it; the engine that claims it. */
  async function offered(p: ProviderConfig, sent: ReturnType<typeof call>): Promise<{ offer: PresentOffer; engine: ReturnType<typeof engineWith> }> {
    const sab = createPresendState();
    const offer = new PresentOffer(sab);
    expect(await presendCall(offer, p, sent, undefined)).toBe(true);
    return { offer, engine: engineWith(p, claimingFetch(sab, httpFetch)) };
  }

  it('the same request is claimed: the server sees it once and the engine reads its streamed answer', async () => {
    const agent = `${format}-same`;
    fake.script(agent, { text: ['pre', '-sent'], toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }], finishReason: 'tool_calls' });
    const p = providerFor(fake, format);
    const { engine } = await offered(p, call(agent));
    const deltas: string[] = [];
    const res = await engine.call(request(agent, { ...call(agent), onTextDelta: (t) => deltas.push(t) }));
    expect(deltas).toEqual(['pre', '-sent']);
    expect(res.text).toBe('pre-sent');
    expect(res.toolCalls.map((c) => c.arguments)).toEqual(['{"path":"a"}']);
    expect(fake.requestsFor(agent)).toHaveLength(1);
    // the next call of the same engine goes out as usual
    fake.script(agent, { text: 'second' });
    expect((await engine.call(request(agent, call(agent, 'again')))).text).toBe('second');
    expect(fake.requestsFor(agent)).toHaveLength(2);
  });

  it('a request with other bytes: the pre-sent one is closed and the engine\'s own is answered', async () => {
    const agent = `${format}-differs`;
    fake.script(agent, { text: ['answer ', 'to ', 'the ', 'pre-sent'], chunkDelayMs: 300 }, { text: 'answer to the engine' });
    const p = providerFor(fake, format);
    const { engine } = await offered(p, call(agent, 'one prompt'));
    const res = await engine.call(request(agent, call(agent, 'another prompt')));
    expect(res.text).toBe('answer to the engine');
    const seen = fake.requestsFor(agent);
    expect(seen).toHaveLength(2);
    expect(seen[1]?.raw).toContain('another prompt');
    await eventually(() => seen[0]?.cancelled === true && fake.pending === 0, 'the pre-sent request closed');
  });

  it('an HTTP error and a refused connection of the pre-sent call are the engine\'s own call\'s result', async () => {
    const agent = `${format}-fails`;
    const p = providerFor(fake, format);
    const fault = { fault: { kind: 'status' as const, status: 500, message: 'boom' } };
    fake.script(agent, fault, fault);
    const direct = await classified(engineWith(p, httpFetch).call(request(agent, call(agent))));
    const { engine } = await offered(p, call(agent));
    const claimed = await classified(engine.call(request(agent, call(agent))));
    expect(fake.requestsFor(agent)).toHaveLength(2);
    expect(claimed).toEqual(direct);
    expect(claimed['code']).toBe('SERVER_ERROR');

    const closed = { ...p, apiBaseUrl: `http://127.0.0.1:${await closedPort()}/v1` };
    const refusedDirect = await classified(engineWith(closed, httpFetch).call(request(agent, call(agent))));
    const { engine: refusedEngine } = await offered(closed, call(agent));
    const refused = await classified(refusedEngine.call(request(agent, call(agent))));
    expect(refused).toEqual(refusedDirect);
    expect(refused['code']).toBe('CONNECTION');
  });

  it('an abort while the claimed answer streams closes the request; an offer nobody claims is closed by abort()', async () => {
    const agent = `${format}-abort`;
    fake.script(agent, { text: ['a', 'b', 'c', 'd', 'e', 'f'], chunkDelayMs: 200 }, { text: 'never read', chunkDelayMs: 1_000 });
    const p = providerFor(fake, format);
    const { engine } = await offered(p, call(agent));
    const ctl = new AbortController();
    const res = engine.call(request(agent, { ...call(agent), signal: ctl.signal, onTextDelta: () => ctl.abort(new Error('cancelled by the test')) }));
    await expect(res).rejects.toThrow();
    await eventually(() => fake.requestsFor(agent)[0]?.cancelled === true, 'the claimed request closed');

    const { offer } = await offered(p, call(agent));
    await eventually(() => fake.requestsFor(agent).length === 2, 'the second offer arrived');
    offer.abort();
    await eventually(() => fake.requestsFor(agent)[1]?.cancelled === true && fake.pending === 0, 'the unclaimed request closed');
  });
});
