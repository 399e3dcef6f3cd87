// rpc.ts over a real MessageChannel in one thread: the hot call/reply shapes take a hand check, anything else goes
// through the wire schema and a bad message ends its call with the schema's issue; one sweep times calls out.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RemoteError } from '../../src/runtime/protocol/index.js';
import { RpcClient, serveRpc } from '../../src/runtime/rpc.js';

const opened: MessagePort[] = [];
afterEach(() => {
  for (const p of opened.splice(0)) p.close();
});

function channel(): [MessagePort, MessagePort] {
  const { port1, port2 } = new MessageChannel();
  opened.push(port1, port2);
  return [port1, port2];
}

/** A client on one end; the test plays the server on the other (reads calls, writes whatever it likes). */
function clientAndWire(clock?: ManualClock): { client: RpcClient; wire: MessagePort; calls: { id: number; method: string }[] } {
  const [mine, wire] = channel();
  const client = new RpcClient(() => Promise.resolve(mine), { target: 'svc', timeoutMs: 1_000, ...(clock ? { clock } : {}) });
  const calls: { id: number; method: string }[] = [];
  wire.on('message', (m: { id: number; method: string }) => calls.push(m));
  return { client, wire, calls };
}

const failure = (p: Promise<unknown>): Promise<RemoteError> => p.then(() => {
  throw new Error('expected a rejection');
}, (e: unknown) => e as RemoteError);

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise<void>((r) => setImmediate(r));
}

describe('rpc', () => {
  it('a malformed reply ends its call at once with BAD_MESSAGE naming the field, not at its timeout', async () => {
    const clock = new ManualClock(0);
    const { client, wire, calls } = clientAndWire(clock);
    const call = failure(client.call('get', []));
    await until(() => calls.length === 1);
    wire.postMessage({ type: 'result', id: calls[0]?.id, ok: 'yes', value: 1 });
    // whatever the client does with the bad reply, the call may not hang: its timeout comes next
    await new Promise<void>((r) => setImmediate(r));
    clock.advance(1_000);
    const err = await call;
    expect(err.code).toBe('BAD_MESSAGE');
    expect(err.message).toMatch(/svc\.get: malformed reply \(ok: /);
    expect(client.inFlight).toBe(0);
  });

  it('a malformed call is answered with BAD_MESSAGE; a well-formed one after it is served', async () => {
    const [server, wire] = channel();
    serveRpc(server, { add: (a: number, b: number) => a + b });
    const replies: { id: number; ok: boolean; value?: unknown; error?: { code?: string; message: string } }[] = [];
    wire.on('message', (m: (typeof replies)[number]) => replies.push(m));
    wire.postMessage({ type: 'call', id: 1, method: 'add', args: 'not a list' });
    wire.postMessage({ type: 'call', id: 2, method: 'add', args: [2, 3] });
    // the bad call is answered first (an rpc.ts that drops it answers only the good one)
    await until(() => replies.length >= 1);
    expect(replies[0]).toMatchObject({ id: 1, ok: false, error: { code: 'BAD_MESSAGE', message: expect.stringMatching(/malformed rpc call \(args: /) as unknown } });
    await until(() => replies.length === 2);
    expect(replies[1]).toMatchObject({ id: 2, ok: true, value: 5 });
  });

  it('replies of every shape cross: values, thrown errors with their code, a sync throw, no such method', async () => {
    const [server, mine] = channel();
    serveRpc(server, {
      value: () => ({ n: 1 }),
      later: () => Promise.resolve('done'),
      boom: () => Promise.reject(Object.assign(new Error('bad'), { code: 'E_BAD' })),
      sync: () => {
        throw new Error('sync');
      },
    });
    const client = new RpcClient(() => Promise.resolve(mine), { target: 'svc' });
    const api = client.proxy<{ value(): { n: number }; later(): string; boom(): void; sync(): void; nope(): void }>();
    expect(await api.value()).toEqual({ n: 1 });
    expect(await api.later()).toBe('done');
    expect((await failure(api.boom())).code).toBe('E_BAD');
    expect((await failure(api.sync())).message).toBe('sync');
    expect((await failure(api.nope())).code).toBe('NO_SUCH_METHOD');
    client.close();
  });

  it('calls made while the port is brokered post in call order, before any later call', async () => {
    const [mine, wire] = channel();
    let give: (p: MessagePort) => void = () => undefined;
    const client = new RpcClient(() => new Promise<MessagePort>((r) => (give = r)), { target: 'svc' });
    const seen: string[] = [];
    wire.on('message', (m: { id: number; method: string }) => {
      seen.push(m.method);
      wire.postMessage({ type: 'result', id: m.id, ok: true, value: m.method });
    });
    const early = [client.call('a', []), client.call('b', [])];
    give(mine);
    await Promise.resolve();
    const late = client.call('c', []);
    expect(await Promise.all([...early, late])).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual(['a', 'b', 'c']);
    client.close();
  });

  it('every call times out once at its own deadline under the one sweep; a late reply changes nothing', async () => {
    const clock = new ManualClock(0);
    const { client, wire, calls } = clientAndWire(clock);
    const ends: string[] = [];
    const track = (name: string, p: Promise<unknown>): Promise<void> => p.then((v) => void ends.push(`${name} ok ${String(v)}`), (e: unknown) => void ends.push(`${name} ${(e as RemoteError).code}`));
    const a = track('a', client.call('a', []));
    await until(() => calls.length === 1);
    clock.advance(500);
    const b = track('b', client.call('b', []));
    const c = track('c', client.call('c', [], 5_000));
    await until(() => calls.length === 3);
    clock.advance(500); // a's deadline (1000); b's is 1500, c's 5500
    await a;
    expect(ends).toEqual(['a RPC_TIMEOUT']);
    wire.postMessage({ type: 'result', id: calls[0]?.id, ok: true, value: 'late' });
    wire.postMessage({ type: 'result', id: calls[2]?.id, ok: true, value: 'c' });
    await c;
    clock.advance(500);
    await b;
    clock.advance(10_000);
    await new Promise<void>((r) => setImmediate(r));
    expect(ends).toEqual(['a RPC_TIMEOUT', 'c ok c', 'b RPC_TIMEOUT']);
    expect(client.inFlight).toBe(0);
    // the sweep re-arms for the next call after it went idle
    const d = track('d', client.call('d', []));
    await until(() => calls.length === 4);
    clock.advance(1_000);
    await d;
    expect(ends.at(-1)).toBe('d RPC_TIMEOUT');
  });

  it('a closed port rejects every pending call once with PORT_CLOSED', async () => {
    const { client, wire, calls } = clientAndWire();
    const p = [client.call('a', []), client.call('b', [])].map(failure);
    await until(() => calls.length === 2);
    wire.close();
    const errs = await Promise.all(p);
    expect(errs.map((e) => e.code)).toEqual(['PORT_CLOSED', 'PORT_CLOSED']);
    expect(client.inFlight).toBe(0);
  });
});
