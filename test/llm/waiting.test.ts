// Silent servers and long answers through the real SDK and the reliability layer (issue 23 item 6, issue 22's cap):
// a call with no byte publishes llm_waiting every 5 s; silence past [llm] stream_idle_timeout is an error, not a
// wait; a KV-cache-full error gets its own fix line; a runaway answer stops at [llm] max_answer_chars.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { OpenAiEngine } from '../../src/actors/llm/engines/openai.js';
import { AnthropicEngine } from '../../src/actors/llm/engines/anthropic.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { LlmError } from '../../src/actors/llm/errors.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import { providerFor, request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp' });
});
afterAll(async () => {
  await fake.close();
});

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 20_000; // generous: real sockets on a loaded machine; the wait is for the event
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function engine(clock: ManualClock, opts: { idleTimeoutMs?: number; maxRetries?: number; maxAnswerChars?: number; format?: 'openai' | 'anthropic' } = {}): { engine: ReliableEngine; events: Event[] } {
  const events: Event[] = [];
  const p = providerFor(fake, opts.format ?? 'openai');
  const raw = opts.maxAnswerChars !== undefined ? { maxAnswerChars: opts.maxAnswerChars } : {};
  const inner = (opts.format ?? 'openai') === 'openai' ? new OpenAiEngine(p, raw) : new AnthropicEngine(p, raw);
  const e = new ReliableEngine(
    inner,
    { maxRetries: opts.maxRetries ?? 0, timeoutMs: 600_000, idleTimeoutMs: opts.idleTimeoutMs ?? 60_000 },
    { clock, gate: null, breaker: null, sleep: async () => undefined, publish: (ev) => void events.push(ev), random: () => 1 },
  );
  return { engine: e, events };
}

const waiting = (events: Event[]): { waitedMs: number; over: boolean }[] =>
  events.flatMap((e) => (e.type === 'llm_waiting' ? [{ waitedMs: e.waitedMs, over: e.over }] : []));

describe('a server that accepts and never sends a byte', () => {
  it('is shown waiting every 5 s, and after stream_idle_timeout the attempt is an error that says so (not a wait)', async () => {
    const clock = new ManualClock(1_000_000);
    const agent = 'silent';
    fake.script(agent, { fault: { kind: 'silent' } });
    const { engine: e, events } = engine(clock, { idleTimeoutMs: 30_000 });
    const pending = e.call(request(agent)).catch((err: unknown) => err);
    await until(() => fake.requestsFor(agent).length === 1, 'the request at the server');
    for (let t = 0; t < 30; t++) clock.advance(1000);
    const err = (await pending) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect([err.code, err.detail.idleMs]).toEqual(['TIMEOUT', 30_000]);
    expect(err.message).toContain('no byte from the server for 30 s ([llm] stream_idle_timeout)');
    expect(err.message).toContain('fix: the server accepted the request and then sent nothing');
    expect(waiting(events)).toEqual([...[5, 10, 15, 20, 25].map((s) => ({ waitedMs: s * 1000, over: false })), { waitedMs: 25_000, over: true }]);
    expect(events.find((ev) => ev.type === 'llm_waiting')).toMatchObject({ agent, provider: 'fake-openai', phase: 'answer', attempt: 1, maxAttempts: 1 });
    // the socket was closed: the server saw the client go away
    await until(() => fake.requestsFor(agent)[0]?.cancelled === true, 'the client to close the request');
  });

  it('a slow first byte: waiting notices, then one `over` when the answer starts, and the answer stands', async () => {
    const clock = new ManualClock(0);
    const agent = 'slow-first-byte';
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    fake.script(agent, async () => {
      await held;
      return { text: 'finally' };
    });
    const { engine: e, events } = engine(clock);
    const pending = e.call(request(agent));
    await until(() => fake.pending === 1, 'the request at the server');
    clock.advance(11_000);
    expect(waiting(events)).toEqual([
      { waitedMs: 5000, over: false },
      { waitedMs: 10_000, over: false },
    ]);
    release();
    expect((await pending).text).toBe('finally');
    expect(waiting(events).at(-1)).toEqual({ waitedMs: 10_000, over: true });
    expect(waiting(events)).toHaveLength(3);
  });

  it('stream_idle_timeout = 0 never ends a silent attempt (only the notices run)', async () => {
    const clock = new ManualClock(0);
    const agent = 'silent-no-idle';
    fake.script(agent, { fault: { kind: 'silent' } });
    const { engine: e, events } = engine(clock, { idleTimeoutMs: 0 });
    const ctl = new AbortController();
    const pending = e.call(request(agent, { signal: ctl.signal })).catch((err: unknown) => err);
    await until(() => fake.requestsFor(agent).length === 1, 'the request at the server');
    clock.advance(120_000);
    expect(waiting(events).filter((w) => !w.over)).toHaveLength(24);
    ctl.abort(new Error('user cancelled'));
    expect(((await pending) as LlmError).code).toBe('CANCELLED');
  });
});

describe('llama-server’s KV cache fills mid-answer', () => {
  it('is retried, and when it keeps failing the error’s fix line names fewer parallel delegations, a larger -c, -np 1', async () => {
    const agent = 'kv-full';
    const kv = { text: ['partial'], fault: { kind: 'kv_full' as const, afterEvents: 2 } };
    fake.script(agent, kv, kv, kv);
    const { engine: e, events } = engine(new ManualClock(0), { maxRetries: 2 });
    const err = (await e.call(request(agent)).catch((x: unknown) => x)) as LlmError;
    expect([err.code, err.detail.kvCacheFull, fake.requestsFor(agent).length]).toEqual(['SERVER_ERROR', true, 3]);
    expect(events.filter((ev) => ev.type === 'llm_retry')).toHaveLength(2);
    const fix = err.message.split('\n')[2] ?? '';
    expect(fix).toContain('max_parallel_delegations = 1');
    expect(fix).toContain('larger -c');
    expect(fix).toContain('-np 1');
  });
});

describe.each(['openai', 'anthropic'] as const)('%s: a runaway streamed answer', (format) => {
  it('stops at max_answer_chars: the read ends there (the request is closed), the call fails once with a clear error', async () => {
    const agent = `runaway-${format}`;
    // 400 deltas of 1000 characters: the server would send 400 KB
    fake.script(agent, { text: Array.from({ length: 400 }, () => 'x'.repeat(1000)), chunkDelayMs: 1 }, { text: 'never asked' });
    const { engine: e } = engine(new ManualClock(0), { maxAnswerChars: 20_000, maxRetries: 3, format });
    const seen: string[] = [];
    const err = (await e.call(request(agent, { onTextDelta: (t) => void seen.push(t) })).catch((x: unknown) => x)) as LlmError;
    expect([err.code, err.retryable, err.detail.answerCapChars]).toEqual(['ANSWER_TOO_LARGE', false, 20_000]);
    expect(err.message).toContain('passed 20000 characters ([llm] max_answer_chars)');
    expect(fake.requestsFor(agent)).toHaveLength(1);
    // what reached the caller is bounded by the cap, not by what the server had to send
    expect(seen.join('').length).toBeLessThanOrEqual(20_000);
    await until(() => fake.requestsFor(agent)[0]?.cancelled === true, 'the request to be closed');
  });
});
