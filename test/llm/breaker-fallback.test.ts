// Circuit breaker (closed → open → half-open, the query is the probe) and weighted fallback providers.
import { describe, expect, it } from 'vitest';
import { createSharedLlmState } from '../../src/runtime/config/index.js';
import { CircuitBreaker } from '../../src/actors/llm/reliability/breaker.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import { FallbackEngine, weightedOrder } from '../../src/actors/llm/reliability/fallback.js';
import { LlmError } from '../../src/actors/llm/errors.js';
import type { LlmEngine, LlmResponse } from '../../src/actors/llm/types.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { request } from './helpers.js';

const ok = (provider: string): LlmResponse => ({
  text: provider,
  toolCalls: [],
  reasoning: [],
  usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 },
  finishReason: 'stop',
  provider,
  model: 'm',
});

/** An engine whose outcomes are scripted; counts calls that reached the "provider". */
function scripted(provider: string, outcomes: ('ok' | 'fail')[]) {
  const state = { calls: 0 };
  const engine: LlmEngine = {
    describe: () => ({ provider, model: 'm' }),
    call: async () => {
      const o = outcomes[state.calls++] ?? 'ok';
      if (o === 'fail') throw new LlmError('SERVER_ERROR', `${provider} down`, true, undefined, 500);
      return ok(provider);
    },
  };
  return { engine, state };
}

describe('circuit breaker', () => {
  it('threshold 0 is off: failures never block', () => {
    const b = new CircuitBreaker(createSharedLlmState({ maxInFlightRequests: 0 }), 'p', 0, 1000, () => 0);
    for (let i = 0; i < 10; i++) b.onFailure();
    expect(b.allow()).toBe(true);
    expect(b.state()).toBe('closed');
  });

  it('opens after threshold consecutive failures; a success in between resets the count', () => {
    const b = new CircuitBreaker(createSharedLlmState({ maxInFlightRequests: 0 }), 'p', 3, 1000, () => 0);
    b.onFailure();
    b.onFailure();
    b.onSuccess();
    b.onFailure();
    b.onFailure();
    expect(b.state()).toBe('closed');
    b.onFailure();
    expect(b.state()).toBe('open');
    expect(b.allow()).toBe(false);
  });

  it('after the cooldown the query itself is the one probe; a second query is refused', () => {
    let now = 0;
    const b = new CircuitBreaker(createSharedLlmState({ maxInFlightRequests: 0 }), 'p', 1, 1000, () => now);
    b.onFailure();
    now = 999;
    expect(b.allow()).toBe(false);
    now = 1000;
    expect(b.allow()).toBe(true);
    expect(b.state()).toBe('half-open');
    expect(b.allow()).toBe(false);
    b.onFailure();
    expect(b.state()).toBe('open');
    now = 2000;
    expect(b.allow()).toBe(true);
    b.onSuccess();
    expect(b.state()).toBe('closed');
    expect(b.allow()).toBe(true);
  });

  it('a cancelled probe hands the probe back', () => {
    let now = 0;
    const b = new CircuitBreaker(createSharedLlmState({ maxInFlightRequests: 0 }), 'p', 1, 10, () => now);
    b.onFailure();
    now = 10;
    expect(b.allow()).toBe(true);
    b.onAbandon();
    expect(b.allow()).toBe(true);
  });

  it('breakers of two providers in one buffer are independent and shared by name', () => {
    const sab = createSharedLlmState({ maxInFlightRequests: 0 });
    const a = new CircuitBreaker(sab, 'alpha', 1, 1000, () => 0);
    const b = new CircuitBreaker(sab, 'beta', 1, 1000, () => 0);
    a.onFailure();
    expect(b.state()).toBe('closed');
    expect(new CircuitBreaker(sab, 'alpha', 1, 1000, () => 0).state()).toBe('open');
  });

  it('an open breaker fails the call fast without reaching the provider', async () => {
    const clock = new ManualClock();
    const sab = createSharedLlmState({ maxInFlightRequests: 0 });
    const breaker = new CircuitBreaker(sab, 'p', 2, 30_000, () => clock.now());
    const { engine, state } = scripted('p', ['fail', 'fail', 'ok']);
    const r = new ReliableEngine(engine, { maxRetries: 5, timeoutMs: 1000 }, { clock, gate: null, breaker, sleep: async () => undefined });
    const err = await r.call(request('a')).catch((e: unknown) => e);
    expect((err as LlmError).code).toBe('CIRCUIT_OPEN');
    expect(state.calls).toBe(2);
    clock.advance(30_000);
    expect((await r.call(request('a'))).text).toBe('p');
    expect(breaker.state()).toBe('closed');
  });
});

describe('fallback providers', () => {
  it('weighted order follows the weights (rng injected)', () => {
    const items = [
      { p: 'a', weight: 1 },
      { p: 'b', weight: 3 },
    ];
    expect(weightedOrder(items, () => 0.1).map((x) => x.p)).toEqual(['a', 'b']);
    expect(weightedOrder(items, () => 0.5).map((x) => x.p)).toEqual(['b', 'a']);
  });

  it('when the primary gives up the next provider answers and each switch is an event', async () => {
    const events: Event[] = [];
    const primary = scripted('main', ['fail']);
    const fb1 = scripted('fb1', ['fail']);
    const fb2 = scripted('fb2', ['ok']);
    const engine = new FallbackEngine(
      primary.engine,
      [
        { provider: 'fb1', weight: 5, engine: fb1.engine },
        { provider: 'fb2', weight: 1, engine: fb2.engine },
      ],
      (e) => events.push(e),
      () => 0,
    );
    const res = await engine.call(request('coding'));
    expect(res.provider).toBe('fb2');
    expect(events.map((e) => (e.type === 'provider_fallback' ? `${e.from}->${e.to}` : e.type))).toEqual(['main->fb1', 'fb1->fb2']);
  });

  it('a cancelled call does not fall back', async () => {
    const events: Event[] = [];
    const cancelled: LlmEngine = {
      describe: () => ({ provider: 'main', model: 'm' }),
      call: async () => {
        throw new LlmError('CANCELLED', 'cancelled', false);
      },
    };
    const fb = scripted('fb', ['ok']);
    const engine = new FallbackEngine(cancelled, [{ provider: 'fb', weight: 1, engine: fb.engine }], (e) => events.push(e));
    await expect(engine.call(request('x'))).rejects.toThrow('cancelled');
    expect(events).toEqual([]);
    expect(fb.state.calls).toBe(0);
  });
});
