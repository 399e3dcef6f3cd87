// The in-flight gate: a process-wide limit over shared memory, queued before the timeout, yielding to cancel.
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSharedLlmState } from '../../src/runtime/config/index.js';
import { InFlightGate } from '../../src/actors/llm/reliability/gate.js';
import { ReliableEngine } from '../../src/actors/llm/reliability/reliable.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../../src/actors/llm/types.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { getEventListeners } from 'node:events';
import { request } from './helpers.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('in-flight gate', () => {
  it('max_in_flight_requests bounds concurrent slots and a release wakes a waiter', async () => {
    const gate = new InFlightGate(createSharedLlmState({ maxInFlightRequests: 2 }));
    const sig = new AbortController().signal;
    const a = await gate.acquire(sig);
    await gate.acquire(sig);
    let third = false;
    const p = gate.acquire(sig).then((s) => ((third = true), s));
    await tick();
    expect(third).toBe(false);
    expect(gate.inFlight()).toBe(2);
    a.release();
    a.release(); // idempotent
    (await p).release();
    expect(third).toBe(true);
    expect(gate.inFlight()).toBe(1);
  });

  it('0 means unlimited', async () => {
    const gate = new InFlightGate(createSharedLlmState({ maxInFlightRequests: 0 }));
    const sig = new AbortController().signal;
    for (let i = 0; i < 50; i++) await gate.acquire(sig);
    expect(gate.inFlight()).toBe(0);
  });

  it('a queued caller yields to cancellation and, never having a slot, never releases one', async () => {
    const gate = new InFlightGate(createSharedLlmState({ maxInFlightRequests: 1 }));
    const held = await gate.acquire(new AbortController().signal);
    const ac = new AbortController();
    const waiting = gate.acquire(ac.signal);
    ac.abort(new Error('user cancelled'));
    await expect(waiting).rejects.toThrow('user cancelled');
    expect(gate.inFlight()).toBe(1);
    held.release();
    expect(gate.inFlight()).toBe(0);
  });

  it('the request timeout starts only after the slot is taken (queueing is not provider slowness)', async () => {
    const clock = new ManualClock();
    const sab = createSharedLlmState({ maxInFlightRequests: 1 });
    const gate = new InFlightGate(sab);
    const started: number[] = [];
    const inner: LlmEngine = {
      describe: () => ({ provider: 'p', model: 'm' }),
      call: (req: LlmRequest) =>
        new Promise<LlmResponse>((resolveCall, reject) => {
          started.push(clock.now());
          req.signal.addEventListener('abort', () => reject(req.signal.reason as Error));
          if (req.agent === 'quick') resolveCall({ text: 'q', toolCalls: [], reasoning: [], usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, finishReason: 'stop', provider: 'p', model: 'm' });
        }),
    };
    const engine = new ReliableEngine(inner, { maxRetries: 0, timeoutMs: 1000 }, { clock, gate, breaker: null });
    const blocker = await gate.acquire(new AbortController().signal);
    const p = engine.call(request('quick'));
    clock.advance(5000); // far beyond the timeout while queued: must not count
    await tick();
    expect(started).toEqual([]);
    blocker.release();
    await expect(p).resolves.toMatchObject({ text: 'q' });
    expect(started).toEqual([5000]);
  });

  it('a call that finds a free slot takes it at once: no waiting watch, no timer beyond its own, the caller signal left clean', async () => {
    const clock = new ManualClock();
    let armed = 0;
    const arm = clock.setTimeout.bind(clock);
    clock.setTimeout = (fn, ms) => (armed++, arm(fn, ms));
    const gate = new InFlightGate(createSharedLlmState({ maxInFlightRequests: 1 }));
    const timersDuringCall: number[] = [];
    const inner: LlmEngine = {
      describe: () => ({ provider: 'p', model: 'm' }),
      call: () => {
        timersDuringCall.push(armed);
        return Promise.resolve({ text: 'q', toolCalls: [], reasoning: [], usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, finishReason: 'stop', provider: 'p', model: 'm' });
      },
    };
    const engine = new ReliableEngine(inner, { maxRetries: 0, timeoutMs: 1000 }, { clock, gate, breaker: null });
    const caller = new AbortController();
    for (let i = 0; i < 3; i++) await engine.call(request('free', { signal: caller.signal }));
    // per call the attempt's timeout and its silence watch; a slot watch would be a third
    expect(timersDuringCall).toEqual([2, 4, 6]);
    expect(clock.pending()).toBe(0);
    expect(gate.inFlight()).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(gate.tryAcquire()).not.toBeNull();
    expect(gate.tryAcquire()).toBeNull();
  });

  it(
    'the limit holds across real worker threads sharing one buffer, without a main-thread hop',
    async () => {
      const sab = createSharedLlmState({ maxInFlightRequests: 2 });
      const gateModule = pathToFileURL(resolve('dist/src/actors/llm/reliability/gate.js')).href;
      const fixture = resolve('test/fixtures/llm/gate-worker.js');
      const acquired: number[] = [];
      let onAcquired = (): void => undefined;
      const workers = [0, 1, 2, 3].map((id) => {
        const w = new Worker(fixture, { workerData: { sab, id, gateModule } });
        w.on('message', (m: { type: string; id: number }) => {
          if (m.type !== 'acquired') return;
          acquired.push(m.id);
          onAcquired();
        });
        return w;
      });
      const pong = (w: Worker): Promise<boolean> =>
        new Promise((r) => {
          const on = (m: { type: string; took: boolean }): void => void (m.type === 'pong' && (w.off('message', on), r(m.took)));
          w.on('message', on);
          w.postMessage('ping');
        });
      // a barrier: each worker answers after its first acquire attempt, and a slot it took was reported first
      const everyoneTried = (): Promise<boolean[]> => Promise.all(workers.map(pong));
      expect((await everyoneTried()).filter(Boolean)).toHaveLength(2);
      expect(acquired).toHaveLength(2);
      const gate = new InFlightGate(sab);
      expect(gate.inFlight()).toBe(2);
      const third = new Promise<void>((r) => (onAcquired = () => void (acquired.length >= 3 && r())));
      workers[acquired[0] ?? 0]?.postMessage('release');
      await third; // a queued worker woke and took the freed slot
      expect((await everyoneTried()).filter(Boolean)).toHaveLength(3); // three ever took a slot: the fourth still waits
      expect(acquired).toHaveLength(3);
      expect(gate.inFlight()).toBe(2);
      await Promise.all(workers.map((w) => w.terminate()));
    },
  );
});
