// The main thread checks worker events against EventSchema: the flat shapes (a literal type and plain strings, e.g.
// ai_chunk, delegation_start) without zod, with zod's answer (the schema's keys in its order: the event itself when it
// already is so, else a copy); anything else (another shape, an extra or missing key, a non-string) through zod.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActorHandle } from '../../src/runtime/actor-host.js';
import { Dispatcher } from '../../src/runtime/dispatcher.js';
import { checkEvent, flatShapes } from '../../src/runtime/event-check.js';
import { EventIngress } from '../../src/runtime/event-ingress.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { EventSchema } from '../../src/runtime/protocol/index.js';

afterEach(() => vi.restoreAllMocks());

/** One event of each flat shape, its string fields filled in (keys in an order of their own). */
function flatSamples(): Record<string, unknown>[] {
  return [...flatShapes()].map(([type, keys]) => Object.fromEntries([...[...keys].reverse().map((k) => [k, `${k}-${type}`]), ['type', type]]));
}

describe('worker events: the flat shapes checked by hand, the rest by zod', () => {
  it('the hot flat shapes are known (ai_chunk, thinking, sub_agent_activity, delegation_start)', () => {
    expect([...flatShapes().keys()]).toEqual(expect.arrayContaining(['ai_chunk', 'thinking', 'sub_agent_activity', 'delegation_start']));
    expect(flatShapes().has('llm_call_end')).toBe(false); // numbers, optionals: zod's
  });

  it('a flat event is dispatched as zod would return it, without calling zod; the rest still goes through zod', () => {
    const samples = flatSamples();
    const odd = [
      { type: 'ai_chunk', agent: 'a', text: 't', extra: 1 }, // stripped by zod
      { type: 'ai_chunk', agent: 'a', text: 7 }, // rejected
      { type: 'ai_chunk', agent: 'a' }, // rejected
      { type: 'ai_stream_start', agent: 'a', step: 2 }, // not flat
      { type: 'nope' },
      null,
    ];
    const want = [...samples, ...odd].map((e) => EventSchema.safeParse(e)).filter((r) => r.success).map((r) => r.data);
    const zod = vi.spyOn(EventSchema, 'safeParse');
    const d = new Dispatcher({ onWarn: () => undefined, clock: new ManualClock(0) });
    const all = d.subscribe({ name: 'all', capacity: 1000 });
    const actor = { source: { name: 'a', taskId: 't', delegationId: null }, credit: () => undefined } as unknown as ActorHandle;
    new EventIngress(d, new ManualClock(0), () => undefined).events(actor, [...samples, ...odd], {});
    expect(zod).toHaveBeenCalledTimes(odd.length); // only the others reach zod
    const got = [];
    for (let env = all.poll(); env; env = all.poll()) got.push(env.payload);
    expect(got).toEqual(want);
    // same keys in the same order (the schema's): a sample whose keys are in another order is a copy
    expect(got.map((e) => Object.keys(e).join())).toEqual(want.map((e) => Object.keys(e).join()));
    for (const [i, s] of samples.entries()) expect(got[i] === s).toBe(Object.keys(s).join() === Object.keys(want[i] as object).join());
    expect(d.dropped().bySource.t).toEqual({ 'invalid:ai_chunk': 2, 'invalid:nope': 1, 'invalid:undefined': 1 });
  });

  it('a flat event already in the schema\'s shape is dispatched as itself (a clone nobody else holds): no copy per event', () => {
    const exact = [...flatShapes()].map(([type, keys]) => Object.fromEntries([['type', type], ...keys.map((k) => [k, `${k}-${type}`])]));
    const d = new Dispatcher({ onWarn: () => undefined, clock: new ManualClock(0) });
    const all = d.subscribe({ name: 'all', capacity: 1000 });
    const actor = { source: { name: 'a', taskId: 't', delegationId: null }, credit: () => undefined } as unknown as ActorHandle;
    new EventIngress(d, new ManualClock(0), () => undefined).events(actor, exact, {});
    const got = [];
    for (let env = all.poll(); env; env = all.poll()) got.push(env.payload);
    expect(got).toHaveLength(exact.length);
    for (const [i, e] of exact.entries()) {
      expect(got[i]).toBe(e);
      expect(got[i]).toEqual(EventSchema.parse(e));
      expect(Object.keys(got[i] as object)).toEqual(Object.keys(EventSchema.parse(e)));
    }
  });

  it('checkEvent answers as EventSchema.safeParse does', () => {
    for (const e of [...flatSamples(), { type: 'ai_chunk', agent: 'a', text: 't', x: undefined }, Object.create({ type: 'ai_chunk', agent: 'a', text: 't' }), [], 'ai_chunk']) {
      const z = EventSchema.safeParse(e);
      const c = checkEvent(e);
      expect(c.success).toBe(z.success);
      if (c.success && z.success) expect(c.data).toEqual(z.data);
    }
  });
});
