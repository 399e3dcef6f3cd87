// The critical lane jumps a saturated normal lane on both sides: the sender posts it ahead of its buffer once the
// credit window is empty, the receiver publishes a saturated sender's critical events before the rest of a backlog
// it is still working through. Without saturation both keep the order published. Each actor's backlog is its own
// (a quiet actor's event never waits behind a busy one's), and cause before effect holds at spawn and help requests.
import { describe, expect, it, vi } from 'vitest';
import { ActorHost, type ActorHandle, type ActorRequests } from '../../src/runtime/actor-host.js';
import { Dispatcher } from '../../src/runtime/dispatcher.js';
import { EventIngress, INGRESS_SLICE } from '../../src/runtime/event-ingress.js';
import { LanePublisher, PACK_CHUNK, packEvents, type PublishBatch } from '../../src/runtime/publisher.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { Envelope, Event } from '../../src/runtime/protocol/index.js';
import { FIXTURE } from './helpers.js';

const chunk = (i: number): Event => ({ type: 'ai_chunk', agent: 'a', text: String(i) });
const critical = (i: number): Event => ({ type: 'delegation_start', agent: 'a', callId: String(i), child: 'c', task: 't' });
const label = (e: unknown): string => {
  const ev = e as Event;
  return ev.type === 'ai_chunk' ? ev.text : ev.type === 'delegation_start' ? `C${ev.callId}` : ev.type;
};

/** A publisher whose ticks run only when the test says so. */
function publisher(window: number): { pub: LanePublisher; sent: PublishBatch[]; tick: () => void } {
  const sent: PublishBatch[] = [];
  let due: (() => void) | undefined;
  const pub = new LanePublisher((b) => sent.push(b), window, (fn) => (due = fn));
  return { pub, sent, tick: () => (due?.(), (due = undefined)) };
}

describe('sender: a critical event and the normal events buffered before it', () => {
  it('with credits left, the buffered normal events (a whole burst) go with it, before it, in one batch', () => {
    const { pub, sent } = publisher(1024);
    for (let i = 0; i < 1000; i++) pub.publish(chunk(i));
    pub.publish(critical(0));
    expect(sent).toHaveLength(2); // the turn's first event went at once, alone
    expect(sent[0]?.events.map(label)).toEqual(['0']);
    expect(sent[1]?.events.map(label)).toEqual([...Array(1000).keys()].slice(1).map(String).concat('C0'));
  });

  it('a saturated buffer is overtaken: the critical event is posted alone first with the drops, the backlog right after in its order', () => {
    const { pub, sent, tick } = publisher(1024);
    for (let i = 0; i < 2000; i++) pub.publish(chunk(i)); // the window (1024) fills, the rest drop
    pub.publish(critical(0));
    pub.publish(critical(1));
    tick();
    expect(sent.map((b) => b.events.length)).toEqual([1, 1, 1023, 1]);
    expect(sent[0]?.events.map(label)).toEqual(['0']); // the turn's first event, at once
    expect(sent[1]?.events.map(label)).toEqual(['C0']);
    expect(sent[1]?.dropped).toEqual({ ai_chunk: 2000 - 1024 }); // tells the receiver the lane is saturated
    expect(sent[2]?.events.map(label)).toEqual([...Array(1024).keys()].slice(1).map(String));
    expect(sent[2]?.dropped).toEqual({});
    expect(sent[3]?.events.map(label)).toEqual(['C1']);
    expect(pub.stats()).toEqual({ inFlight: 1024, sentNormal: 1024, dropped: 2000 - 1024 });
  });

  it('the first event after an idle turn is posted at once; the rest of that turn waits for the tick, in order', () => {
    // a first token must not wait for what its actor does next in the same turn (the rest of the reply, a tool batch)
    const { pub, sent, tick } = publisher(1024);
    pub.publish(chunk(0));
    expect(sent.map((b) => b.events.map(label))).toEqual([['0']]);
    pub.publish(chunk(1));
    pub.publish(chunk(2));
    expect(sent).toHaveLength(1); // batched behind the first
    tick();
    expect(sent.map((b) => b.events.map(label))).toEqual([['0'], ['1', '2']]);
    tick(); // an idle turn: nothing pending
    pub.publish(chunk(3));
    expect(sent.map((b) => b.events.map(label))).toEqual([['0'], ['1', '2'], ['3']]);
    tick();
    expect(sent).toHaveLength(3); // the tick that followed found nothing to send
    expect(pub.stats()).toEqual({ inFlight: 4, sentNormal: 4, dropped: 0 });
  });
});

/** An ingress on a dispatcher, fed as a worker's port would, with its turns run by the test. */
function ingress(): { ing: EventIngress; d: Dispatcher; actor: ActorHandle; credited: () => number; turn: () => boolean } {
  const d = new Dispatcher({ onWarn: () => undefined, clock: new ManualClock(0) });
  let credits = 0;
  const actor = { source: { name: 'flooder', taskId: 't', delegationId: null }, credit: (n: number) => void (credits += n) } as unknown as ActorHandle;
  let due: (() => void) | undefined;
  const ing = new EventIngress(d, new ManualClock(0), (fn) => (due = fn));
  const turn = (): boolean => {
    const fn = due;
    due = undefined;
    fn?.();
    return fn !== undefined;
  };
  return { ing, d, actor, credited: () => credits, turn };
}

describe('the wire: a long batch of flat normal events is packed as JSON text, parsed a chunk at its turn', () => {
  it('the sender packs over PACK_CHUNK normal flat events into JSON text chunks; a critical, another shape or a short batch go as objects', () => {
    const long = [...Array(300).keys()].map(chunk);
    const packed = packEvents(long);
    expect(packed).toHaveLength(Math.ceil(300 / PACK_CHUNK));
    expect(packed.every((c) => typeof c === 'string')).toBe(true);
    expect(packed.flatMap((c) => JSON.parse(c as string) as unknown[])).toEqual(long);
    const short = long.slice(0, PACK_CHUNK);
    expect(packEvents(short)).toBe(short);
    const withCritical = [...long, critical(0)];
    expect(packEvents(withCritical)).toBe(withCritical);
    const withOther = [...long, { type: 'ai_stream_start', agent: 'a', step: 1 } as Event];
    expect(packEvents(withOther)).toBe(withOther);
  });

  it('a packed batch is queued unparsed: a saturated sender\'s critical behind it goes first, then every event once, in order, credited', () => {
    const { ing, d, actor, credited, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    const probe = d.subscribe({ name: 'probe', filter: { types: ['delegation_start'] } });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      ing.events(actor, packEvents([...Array(1023).keys()].map(chunk)), {});
      expect(all.depth).toBe(0); // nothing decoded at its arrival
      expect(parse).not.toHaveBeenCalled();
      ing.events(actor, [critical(0)], { ai_chunk: 976 }); // the next port message
      expect(probe.poll()?.payload).toEqual(critical(0));
      let turns = 0;
      while (turn()) turns++;
      expect(turns).toBe(Math.ceil(1023 / INGRESS_SLICE));
      expect(parse).toHaveBeenCalledTimes(Math.ceil(1023 / PACK_CHUNK)); // a chunk at its turn
    } finally {
      parse.mockRestore();
    }
    const seen: string[] = [];
    for (let e = all.poll(); e; e = all.poll()) seen.push(label(e.payload));
    expect(seen).toEqual(['C0', ...[...Array(1023).keys()].map(String)]);
    expect(credited()).toBe(1023);
  });

  it('a critical event without drops pulls its actor\'s packed backlog through at its arrival, in order', () => {
    const { ing, d, actor, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    ing.events(actor, packEvents([...Array(500).keys()].map(chunk)), {});
    ing.events(actor, [critical(1)], {});
    const order: string[] = [];
    for (let e = all.poll(); e; e = all.poll()) order.push(label(e.payload));
    expect(order).toEqual([...[...Array(500).keys()].map(String), 'C1']);
    turn();
    expect(all.depth).toBe(0); // nothing was left for a later turn
  });
});

describe('receiver: a backlog is handled a slice per turn, a saturated sender\'s critical event goes first', () => {
  it('publishes the critical event before the rest of the backlog, every event once, seq in delivery order', () => {
    const { ing, d, actor, credited, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    const probe = d.subscribe({ name: 'probe', filter: { types: ['delegation_start'] } });
    ing.events(actor, [...Array(1024).keys()].map(chunk), {});
    expect(all.depth).toBe(INGRESS_SLICE); // one slice now, the rest on later turns
    ing.events(actor, [critical(0)], { ai_chunk: 976 }); // the next port message, before the next turn
    expect(probe.poll()?.payload).toEqual(critical(0));
    ing.events(actor, [chunk(1024), critical(1)], { ai_chunk: 5 }); // behind the backlog: its critical goes now too
    expect(probe.poll()?.payload).toEqual(critical(1));
    let turns = 0;
    while (turn()) turns++;
    expect(turns).toBe(Math.ceil(1025 / INGRESS_SLICE) - 1);
    const seen: Envelope[] = [];
    for (let e = all.poll(); e; e = all.poll()) seen.push(e);
    expect(seen.map((e) => e.seq)).toEqual([...Array(1027).keys()].map((i) => i + 1));
    const normals = seen.filter((e) => e.type === 'ai_chunk').map((e) => label(e.payload));
    expect(normals).toEqual([...Array(1025).keys()].map(String)); // the normal lane keeps its order
    expect(seen.map((e) => label(e.payload)).indexOf('C0')).toBe(INGRESS_SLICE);
    expect(credited()).toBe(1025); // a credit per normal event handled, none for the critical ones
    expect(d.dropped().bySource.t).toEqual({ ai_chunk: 981 });
  });

  it('without drops reported a critical event waits its turn: the order between lanes is the order published', () => {
    const { ing, d, actor, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    ing.events(actor, [...Array(300).keys()].map(chunk).concat(critical(0)), {}); // a burst, then the critical, one batch
    ing.events(actor, [critical(1)], {}); // the next message, before the next turn
    ing.events(actor, [chunk(300)], {});
    while (turn());
    const order: string[] = [];
    for (let e = all.poll(); e; e = all.poll()) order.push(label(e.payload));
    expect(order).toEqual([...[...Array(300).keys()].map(String), 'C0', 'C1', '300']);
  });

  it('without drops a critical event pulls what its actor queued before it through at its arrival, in order', () => {
    const { ing, d, actor, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    const probe = d.subscribe({ name: 'probe', filter: { types: ['delegation_start'] } });
    ing.events(actor, [...Array(1000).keys()].map(chunk), {}); // one slice now, the rest would take turns
    ing.events(actor, [critical(0)], {});
    expect(probe.poll()?.payload).toEqual(critical(0)); // no turn waited for
    ing.events(actor, [...Array(500).keys()].map((i) => chunk(1000 + i)).concat(critical(1), chunk(1500)), {});
    expect(probe.poll()?.payload).toEqual(critical(1)); // nor inside one batch
    const depth = all.depth;
    while (turn());
    expect(all.depth).toBe(depth); // nothing was left queued for a later turn
    const order: string[] = [];
    for (let e = all.poll(); e; e = all.poll()) order.push(label(e.payload));
    expect(order).toEqual([...[...Array(1000).keys()].map(String), 'C0', ...[...Array(500).keys()].map((i) => String(1000 + i)), 'C1', '1500']);
  });

  it('settle hands over every queued event of the actor at once (before its exit is reported)', () => {
    const { ing, d, actor, credited, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    ing.events(actor, [...Array(1000).keys()].map(chunk), {});
    ing.settle(actor);
    expect(all.depth).toBe(1000);
    expect(credited()).toBe(1000);
    turn(); // the turn that was armed finds nothing left
    expect(all.depth).toBe(1000);
    ing.events(actor, [chunk(1000)], {}); // no backlog: handled at once, as before
    expect(all.depth).toBe(1001);
  });
});

describe('receiver: each actor\'s backlog is its own', () => {
  const actorOf = (name: string, credit: (n: number) => void = () => undefined): ActorHandle =>
    ({ source: { name, taskId: 't', delegationId: null }, credit }) as unknown as ActorHandle;

  it('a quiet actor\'s event is dispatched at once, before a busy actor\'s remaining backlog', () => {
    const { ing, d, actor: busy, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    ing.events(busy, [...Array(1024).keys()].map(chunk), {}); // one slice now, the rest on later turns
    ing.events(actorOf('quiet'), [{ type: 'ai_chunk', agent: 'q', text: 'first token' }], {});
    const now: string[] = [];
    for (let e = all.poll(); e; e = all.poll()) now.push(`${e.source}:${label(e.payload)}`);
    expect(now).toHaveLength(INGRESS_SLICE + 1);
    expect(now.at(-1)).toBe('quiet:first token'); // not after the other 896 events
    while (turn());
    const rest: Envelope[] = [];
    for (let e = all.poll(); e; e = all.poll()) rest.push(e);
    expect(rest.map((e) => label(e.payload))).toEqual([...Array(1024).keys()].slice(INGRESS_SLICE).map(String));
  });

  it('actors with a backlog share each slice in turn, each in its own order, every event once', () => {
    const { ing, d, turn } = ingress();
    const all = d.subscribe({ name: 'all', capacity: 100_000 });
    const seen: Envelope[] = [];
    const take = (): Envelope[] => {
      const now: Envelope[] = [];
      for (let e = all.poll(); e; e = all.poll()) now.push(e);
      seen.push(...now);
      return now;
    };
    const from = (envs: Envelope[], src: string): number => envs.filter((e) => e.source === src).length;
    ing.events(actorOf('a'), [...Array(600).keys()].map(chunk), {});
    ing.events(actorOf('b'), [...Array(600).keys()].map(chunk), {});
    expect(from(take(), 'a')).toBe(INGRESS_SLICE); // a's first slice went at its arrival
    turn(); // the next slice is shared: b does not wait for all of a's batch
    const second = take();
    expect([from(second, 'a'), from(second, 'b')]).toEqual([INGRESS_SLICE / 2, INGRESS_SLICE / 2]);
    while (turn());
    take();
    for (const src of ['a', 'b']) expect(seen.filter((e) => e.source === src).map((e) => label(e.payload))).toEqual([...Array(600).keys()].map(String));
    expect(seen.map((e) => e.seq)).toEqual([...Array(1200).keys()].map((k) => k + 1)); // seq in delivery order
  });
});

describe('an actor\'s end waits for its events', () => {
  it('the host settles the ingress for an actor before its exit resolves (a real worker)', async () => {
    const calls: string[] = [];
    const refuse = (): Promise<never> => Promise.reject(new Error('not in this test'));
    const requests: ActorRequests = {
      publish: (a, events) => (calls.push('publish'), a.credit(events.length)),
      settle: () => void calls.push('settle'),
      connect: refuse,
      spawn: refuse,
      spawnCancel: () => undefined,
      help: refuse,
      helpCancel: () => undefined,
    };
    const host = new ActorHost({ requests, spares: 0, preload: [] });
    try {
      const h = await host.start({ name: 'f', module: FIXTURE, input: { mode: 'flood', normal: 10, criticalEvery: 5 }, taskId: 't', delegationId: null });
      const exit = await h.exited;
      expect(exit.normal).toBe(true);
      expect(calls.at(-1)).toBe('settle'); // after its last batch, before anyone hears it ended
      expect(calls).toContain('publish');
    } finally {
      await host.close();
    }
  });

  // two events in one turn before the request: the first leaves at once, the second would wait in the publisher
  it.each([
    ['a child is dispatched before the spawn is served', { mode: 'spawn_child', child: { name: 'c', input: { mode: 'wait_stop' } }, announce: ['one', 'two'] }, 'spawn'],
    ['help is dispatched before the help request is published', { mode: 'ask_help', question: 'q?', announce: ['one', 'two'] }, 'help'],
  ] as const)('what an actor published before asking for %s (a real worker)', async (_what, input, request) => {
    const calls: string[] = [];
    const refuse = (name: string) => (): Promise<never> => (calls.push(name), Promise.reject(new Error('not in this test')));
    const requests: ActorRequests = {
      publish: (a, events) => (calls.push(...events.map((e) => `event:${(e as { text?: string }).text ?? ''}`)), a.credit(events.length)),
      settle: () => void calls.push('settle'),
      connect: refuse('connect'),
      spawn: refuse('spawn'),
      spawnCancel: () => undefined,
      help: refuse('help'),
      helpCancel: () => undefined,
    };
    const host = new ActorHost({ requests, spares: 0, preload: [] });
    try {
      const h = await host.start({ name: 'p', module: FIXTURE, input, taskId: 't', delegationId: null });
      await h.exited;
      expect(calls.slice(0, 4)).toEqual(['event:one', 'event:two', 'settle', request]);
    } finally {
      await host.close();
    }
  });
});
