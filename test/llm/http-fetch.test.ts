// The SDKs' transport (src/actors/llm/transport): fetch's contract on node:http/https against real loopback servers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, Agent as HttpsAgent } from 'node:https';
import { gzipSync } from 'node:zlib';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createHttpFetch, httpFetch } from '../../src/actors/llm/transport/http-fetch.js';
import { FetchHeaders } from '../../src/actors/llm/transport/web-shims.js';
import { classifyError } from '../../src/actors/llm/errors.js';
import { readSse, type SseEvent } from '../../src/actors/llm/engines/sse-decode.js';
import { Worker } from 'node:worker_threads';
import { distFile } from '../../src/runtime/dist-paths.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
let server: Server;
let base: string;
let other: Server;
let otherBase: string;

function listen(s: Server): Promise<string> {
  s.listen(0, '127.0.0.1');
  return once(s, 'listening').then(() => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const h = routes.get((req.url ?? '').split('?')[0] ?? '');
      if (h) h(req, body, res);
      else res.writeHead(404).end('no route');
    });
  });
  base = await listen(server);
  other = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: `other:${req.url ?? ''}`, headers: req.headers, body: '' });
    res.end('other');
  });
  otherBase = await listen(other);
});
afterAll(async () => {
  server.closeAllConnections();
  other.closeAllConnections();
  await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => other.close(r))]);
});

describe('http transport (fetch on node:http)', () => {
  it('sends method, headers and body as given, and answers with status, headers and the body read whole', async () => {
    routes.set('/echo', (req, body, res) => {
      res.setHeader('x-multi', ['a', 'b']);
      res.setHeader('set-cookie', ['s=1', 't=2']);
      res.writeHead(201, 'Made', { 'content-type': 'application/json' }).end(JSON.stringify({ got: body, auth: req.headers['authorization'] }));
    });
    const headers = new FetchHeaders({ Authorization: 'Bearer k', 'Content-Type': 'application/json' });
    const res = await httpFetch(`${base}/echo`, { method: 'post', headers: headers as unknown as Headers, body: '{"x":1}' });
    expect([res.status, res.statusText, res.ok, res.url, res.redirected]).toEqual([201, 'Made', true, `${base}/echo`, false]);
    expect(res.headers.get('X-Multi')).toBe('a, b');
    expect(res.headers.getSetCookie()).toEqual(['s=1', 't=2']);
    expect(await res.json()).toEqual({ got: '{"x":1}', auth: 'Bearer k' });
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    const sent = seen.at(-1);
    expect(sent?.method).toBe('POST');
    expect(sent?.headers['content-length']).toBe('7');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers['accept-encoding']).toBeUndefined(); // no compression asked for: the stream comes as sent
  });

  it("takes undici's Headers, plain records and pair lists alike; a string body gets fetch's default type", async () => {
    routes.set('/h', (req, _b, res) => res.end(JSON.stringify([req.headers['x-a'], req.headers['content-type']])));
    const inits = [new Headers({ 'x-a': '1' }), { 'x-a': '1' }, [['x-a', '1']] as [string, string][]];
    for (const h of inits) expect(await (await httpFetch(`${base}/h`, { method: 'POST', headers: h, body: 'hi' })).json()).toEqual(['1', 'text/plain;charset=UTF-8']);
  });

  it('streams the body as it arrives: the first event is read before the server has finished', async () => {
    let finish: (() => void) | undefined;
    routes.set('/sse', (_r, _b, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: two\n\n');
    });
    const res = await httpFetch(`${base}/sse`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value ?? new Uint8Array()).toString()).toBe('data: one\n\n');
    expect(finish).toBeDefined();
    finish?.();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
    expect(rest).toBe('data: two\n\n');
  });

  it('an abort before the answer rejects with the signal’s reason; one mid-body errors the body with it and closes the socket', async () => {
    routes.set('/hang', () => undefined);
    const early = new AbortController();
    const pending = httpFetch(`${base}/hang`, { signal: early.signal });
    const reason = new Error('user cancelled');
    early.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const pre = new AbortController();
    pre.abort();
    await expect(httpFetch(`${base}/hang`, { signal: pre.signal })).rejects.toMatchObject({ name: 'AbortError' });

    let closed: Promise<unknown> | undefined;
    routes.set('/half', (req, _b, res) => {
      closed = once(req.socket, 'close');
      res.writeHead(200).write('part');
    });
    const mid = new AbortController();
    const res = await httpFetch(`${base}/half`, { signal: mid.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const why = new Error('timeout');
    mid.abort(why);
    await expect(reader.read()).rejects.toBe(why);
    await closed;
  });

  it('the engines read an event stream from the socket itself (no web stream made), and an abort or a decoder error mid-body closes the connection', async () => {
    routes.set('/events', (_r, _b, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"a":1}\n\nevent: x\ndata: é\n\n');
    });
    const events: SseEvent[] = [];
    const whole = await httpFetch(`${base}/events`);
    await readSse(whole, (e) => events.push({ event: e.event, data: e.data }));
    expect(events).toEqual([{ event: undefined, data: '{"a":1}' }, { event: 'x', data: 'é' }]);
    // the body was claimed as the Node stream it is: no web view of it was ever built, nor can one be now
    expect([whole.bodyUsed, whole.body]).toEqual([true, null]);
    // an SDK that only touches `body` (Anthropic's abandonment backstop does, per response) does not take it over
    const touched = await httpFetch(`${base}/events`);
    expect(touched.body).not.toBeNull();
    events.length = 0;
    await readSse(touched, (e) => events.push({ event: e.event, data: e.data }));
    expect(events).toHaveLength(2);
    expect(touched.bodyUsed).toBe(true); // claimed as the Node stream (a web read would have released its lock)

    let closed: Promise<unknown> | undefined;
    routes.set('/events-half', (req, _b, res) => {
      closed = once(req.socket, 'close');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const mid = new AbortController();
    const why = new Error('timeout');
    const half = await httpFetch(`${base}/events-half`, { signal: mid.signal });
    await expect(readSse(half, () => mid.abort(why))).rejects.toBe(why);
    await closed;
    const broken = new Error('decoder says no');
    const again = await httpFetch(`${base}/events-half`);
    await expect(
      readSse(again, () => {
        throw broken;
      }),
    ).rejects.toBe(broken);
    await closed;
  });

  it('touching `body` builds no web stream (~20 µs each in Node 20): the stand-in makes one only when read, and reads as one', async () => {
    routes.set('/lazy', (_r, _b, res) => res.end('abc'));
    const Real = globalThis.ReadableStream;
    let made = 0;
    globalThis.ReadableStream = class extends Real<Uint8Array> {
      constructor(...args: ConstructorParameters<typeof Real<Uint8Array>>) {
        super(...args);
        made++;
      }
    } as typeof Real;
    try {
      // what Anthropic's SDK does to every answer (its abandonment backstop keys a FinalizationRegistry on the body)
      const touched = await httpFetch(`${base}/lazy`);
      expect(touched.body).not.toBeNull();
      expect([made, touched.bodyUsed, touched.body?.locked]).toEqual([0, false, false]);
      let text = '';
      for await (const chunk of touched.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
      expect([text, made > 0, touched.bodyUsed]).toEqual(['abc', true, false]);
      const read = await httpFetch(`${base}/lazy`);
      const reader = (read.body as ReadableStream<Uint8Array>).getReader();
      expect([read.bodyUsed, read.body?.locked]).toEqual([true, true]);
      let got = '';
      for (let r = await reader.read(); !r.done; r = await reader.read()) got += Buffer.from(r.value).toString();
      expect(got).toBe('abc');
      const cancelled = await httpFetch(`${base}/lazy`);
      await expect(cancelled.body?.cancel()).resolves.toBeUndefined();
    } finally {
      globalThis.ReadableStream = Real;
    }
  });

  it('a refused connection is a TypeError whose cause is the socket error, classified CONNECTION with its errno', async () => {
    const probe = createServer();
    const free = await listen(probe);
    await new Promise((r) => probe.close(r));
    const err: unknown = await httpFetch(`${free}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    const c = classifyError(err, { cancelled: false, timedOut: false, now: 0 });
    expect([c.code, c.errno]).toEqual(['CONNECTION', 'ECONNREFUSED']);
  });

  it('a URL fetch cannot send is refused before any connection, classified INVALID_URL (no retry)', async () => {
    for (const url of ['ftp://127.0.0.1/x', 'not a url']) {
      const err: unknown = await httpFetch(url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TypeError);
      expect(classifyError(err, { cancelled: false, timedOut: false, now: 0 }).code).toBe('INVALID_URL');
    }
  });

  it('follows redirects within the origin (303 becomes a GET), and refuses one to another origin without contacting it', async () => {
    routes.set('/old', (_r, _b, res) => res.writeHead(307, { location: '/new' }).end());
    routes.set('/new', (req, body, res) => res.end(`${req.method} ${body}`));
    routes.set('/see', (_r, _b, res) => res.writeHead(303, { location: `${base}/new` }).end());
    routes.set('/away', (_r, _b, res) => res.writeHead(308, { location: `${otherBase}/steal` }).end());
    const kept = await httpFetch(`${base}/old`, { method: 'POST', body: 'b' });
    expect([await kept.text(), kept.redirected, kept.url]).toEqual(['POST b', true, `${base}/new`]);
    expect(await (await httpFetch(`${base}/see`, { method: 'POST', body: 'b' })).text()).toBe('GET ');
    const err: unknown = await httpFetch(`${base}/away`, { method: 'POST', headers: { authorization: 'Bearer secret' }, body: 'b' }).catch((e: unknown) => e);
    expect(String((err as { cause?: Error }).cause?.message)).toContain(`another origin (${otherBase})`);
    expect(classifyError(err, { cancelled: false, timedOut: false, now: 0 }).code).toBe('INVALID_URL');
    expect(seen.filter((s) => s.url.startsWith('other:'))).toEqual([]);
    const manual = await httpFetch(`${base}/old`, { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([307, '/new']);
  });

  it('decodes a gzip answer, gives 204 a null body, and a clone reads the same bytes as the original', async () => {
    routes.set('/gz', (_r, _b, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('squeezed')));
    routes.set('/none', (_r, _b, res) => res.writeHead(204).end());
    routes.set('/twice', (_r, _b, res) => res.end('same'));
    expect(await (await httpFetch(`${base}/gz`)).text()).toBe('squeezed');
    const empty = await httpFetch(`${base}/none`);
    expect([empty.body, await empty.text()]).toEqual([null, '']);
    const a = await httpFetch(`${base}/twice`);
    const b = a.clone();
    expect([await a.text(), await b.text()]).toEqual(['same', 'same']);
  });

  it('a request that fails on a reused socket before any answer byte is sent again once, on a fresh socket, and no more', async () => {
    let served = 0;
    let arrivals = 0;
    routes.set('/flaky', (req, _b, res) => {
      arrivals++;
      if (served++ === 0) res.end('first');
      else req.socket.destroy(); // every later request dies before a byte, whichever socket it came on
    });
    const f = createHttpFetch();
    expect(await (await f(`${base}/flaky`)).text()).toBe('first');
    const err: unknown = await f(`${base}/flaky`, { method: 'POST', body: 'x' }).catch((e: unknown) => e);
    expect((err as { cause?: { code?: string } }).cause?.code).toBe('ECONNRESET');
    // the reused socket's attempt and one on a new socket: the fresh socket's failure is final
    expect(arrivals).toBe(3);
  });

  it('an answer with Connection: close is not pooled: the next request opens a new connection, and nothing is re-sent', async () => {
    const sockets = new Set<unknown>();
    let arrivals = 0;
    routes.set('/closing', (req, _b, res) => {
      arrivals++;
      sockets.add(req.socket);
      res.writeHead(200, { connection: 'close', 'content-type': 'text/event-stream' }).end('data: x\n\n');
    });
    const f = createHttpFetch();
    for (let i = 0; i < 3; i++) expect(await (await f(`${base}/closing`)).text()).toBe('data: x\n\n');
    expect([arrivals, sockets.size]).toEqual([3, 3]);
  });

  it('speaks https with the pool it is given (a test certificate for 127.0.0.1)', async () => {
    const dir = join(import.meta.dirname, '..', 'fixtures', 'tls');
    const cert = readFileSync(join(dir, 'cert.pem'));
    const tls = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => res.end(`tls ${req.method}`));
    const url = await listen(tls as unknown as Server);
    const agent = new HttpsAgent({ ca: cert, keepAlive: true });
    try {
      const f = createHttpFetch({ agents: { https: agent } });
      expect(await (await f(url.replace('http:', 'https:'), { method: 'PUT' })).text()).toBe('tls PUT');
      // the default pool trusts the system's roots only
      const err: unknown = await httpFetch(url.replace('http:', 'https:')).catch((e: unknown) => e);
      expect((err as { cause?: { code?: string } }).cause?.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
    } finally {
      agent.destroy();
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
    }
  });
});

describe('web shims (what the vendored SDKs get for Headers, FormData, Response)', () => {
  it('Headers: case-insensitive names, joined repeats, sorted pairs, set-cookie apart, bad names and values refused', () => {
    const h = new FetchHeaders([['B', '2'], ['a', '1'], ['b', '3']]);
    h.append('Set-Cookie', 'x=1');
    h.append('set-cookie', 'y=2');
    expect([...h]).toEqual([['a', '1'], ['b', '2, 3'], ['set-cookie', 'x=1'], ['set-cookie', 'y=2']]);
    expect([h.get('B'), h.has('A'), h.get('none')]).toEqual(['2, 3', true, null]);
    h.set('b', ' 4 ');
    h.delete('a');
    expect(Object.fromEntries(h.entries())).toEqual({ b: '4', 'set-cookie': 'y=2' });
    expect(() => h.set('bad name', 'v')).toThrow(TypeError);
    expect(() => h.set('x', 'a\r\nb: c')).toThrow(TypeError);
    // a caller's undici Headers counts as Headers where the SDKs ask (`instanceof Headers`)
    expect(new Headers({ a: '1' }) instanceof FetchHeaders).toBe(true);
    expect({ a: '1' } instanceof FetchHeaders).toBe(false);
  });

  it('Headers: the order and the wire record follow every name that comes or goes, a refused name stays refused', () => {
    const h = new FetchHeaders({ b: '1' });
    expect([...h]).toEqual([['b', '1']]);
    h.append('A', '2');
    expect(Object.entries(h.record())).toEqual([['a', '2'], ['b', '1']]);
    h.set('C', '3');
    expect(Object.entries(h.record())).toEqual([['a', '2'], ['b', '1'], ['c', '3']]);
    h.set('a', '4');
    h.delete('B');
    expect([...h]).toEqual([['a', '4'], ['c', '3']]);
    h.append('Set-Cookie', 'x=1');
    h.append('set-cookie', 'y=2');
    expect(Object.entries(h.record())).toEqual(Object.entries(Object.fromEntries(h)));
    expect(h.record()).toEqual({ a: '4', c: '3', 'set-cookie': 'y=2' });
    for (let i = 0; i < 2; i++) expect(() => h.append('bad name', 'v')).toThrow(TypeError);
    // many distinct names (past what the shim remembers of checked names) still read back by any case
    const many = new FetchHeaders();
    for (let i = 0; i < 600; i++) many.append(`X-N${i}`, String(i));
    expect([many.get('x-n0'), many.get('X-N599'), Object.keys(many.record()).length]).toEqual(['0', '599', 600]);
    expect(() => many.append('bad name', 'v')).toThrow(TypeError);
  });

  it('Headers: a copy of ours (the transport copies each request\'s) takes its state without iterating it, and stands apart', () => {
    const h = new FetchHeaders({ B: '2', a: '1' });
    h.append('Set-Cookie', 'x=1');
    h.append('set-cookie', 'y=2');
    h.delete('x-none');
    expect(h.record()).toEqual({ a: '1', b: '2', 'set-cookie': 'y=2' }); // its order is known: the copy shares it until a name comes or goes
    const iterated = vi.spyOn(h, Symbol.iterator);
    const entries = vi.spyOn(h, 'entries');
    const copy = new FetchHeaders(h);
    expect([iterated.mock.calls.length, entries.mock.calls.length]).toEqual([0, 0]);
    expect([...copy]).toEqual([['a', '1'], ['b', '2'], ['set-cookie', 'x=1'], ['set-cookie', 'y=2']]);
    expect(copy.getSetCookie()).toEqual(['x=1', 'y=2']);
    copy.set('c', '3');
    copy.delete('a');
    copy.append('set-cookie', 'z=3');
    expect([...h]).toEqual([['a', '1'], ['b', '2'], ['set-cookie', 'x=1'], ['set-cookie', 'y=2']]);
    expect(copy.record()).toEqual({ b: '2', c: '3', 'set-cookie': 'z=3' });
    h.append('d', '4');
    expect([copy.has('d'), Object.keys(h.record())]).toEqual([false, ['a', 'b', 'd', 'set-cookie']]);
  });

  it('in a fresh thread, building Headers and asking instanceof FormData or Response of a plain body loads no undici', async () => {
    const probe = `import(${JSON.stringify(distFile('src/actors/llm/transport/web-shims.js'))}).then((m) => {
      const h = new m.Headers({ a: '1' });
      const answers = [h.get('a'), {} instanceof m.FormData, 'x' instanceof m.Response];
      require('node:worker_threads').parentPort.postMessage({ answers, undici: process.moduleLoadList.some((l) => l.endsWith('undici/undici')) });
    });`;
    const w = new Worker(probe, { eval: true });
    const [m] = (await once(w, 'message')) as [{ answers: unknown[]; undici: boolean }];
    await w.terminate();
    expect(m).toEqual({ answers: ['1', false, false], undici: false });
  });
});
