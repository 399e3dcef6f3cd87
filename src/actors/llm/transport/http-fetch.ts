// The fetch both SDKs send with, on node:http/https. Node's own fetch is undici: ~45 ms of CPU to load in each thread
// and ~40 ms more for its first request (its parser is WebAssembly compiled per thread), on the critical path of every
// agent's first model call; node:http's first request costs ~12 ms (bench/AGENTS.md). What the SDKs' calls need, with
// fetch's contract: an abort rejects with the signal's reason (the body errors with it too), a network failure is a
// TypeError whose cause is the socket's error, redirects are followed within one origin only (an API key is never sent
// elsewhere), a compressed answer is decoded.
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { Readable } from 'node:stream';
import { nodeHttp, nodeHttps, nodeZlib } from '../../../runtime/lazy-builtins.js';
import { traceOnce } from '../../../runtime/trace.js';
import { FetchHeaders, type HeadersLike } from './web-shims.js';
import { HttpResponse } from './http-response.js';
import { SocketReuse } from './socket-reuse.js';
import { rememberErrorBody } from './error-bodies.js';

const MAX_REDIRECTS = 20;
const IDLE_SOCKET_MS = 4_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export interface HttpFetchOptions {
  /** Connection pools (tests pass an https agent that trusts their certificate); default: one keep-alive pool each. */
  agents?: { http?: Http.Agent; https?: Https.Agent };
}

interface FetchInit {
  method?: string;
  headers?: HeadersLike | null;
  body?: unknown;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'error' | 'manual';
  /** Called once the request (headers and body) is handed to the OS (the pre-sent first request waits for it). */
  onWritten?: () => void;
}

/** A network failure as fetch reports it: the socket's error (ECONNREFUSED, …) is the cause. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** What is sent: bytes, or text node:http encodes as UTF-8 as it writes it (no copy of every request body). */
type Payload = Buffer | string;

function payloadLength(p: Payload): number {
  return typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.byteLength;
}

/** The body to send and its default content type; a Blob only is read asynchronously (the SDKs send text). */
function bodyBytes(body: unknown): { bytes: Payload | null; type?: string } | Promise<{ bytes: Payload | null; type?: string }> {
  if (body === undefined || body === null) return { bytes: null };
  if (typeof body === 'string') return { bytes: body, type: 'text/plain;charset=UTF-8' };
  if (body instanceof URLSearchParams) return { bytes: Buffer.from(body.toString(), 'utf8'), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (body instanceof ArrayBuffer) return { bytes: Buffer.from(body) };
  if (ArrayBuffer.isView(body)) return { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
  if (body instanceof Blob) return body.arrayBuffer().then((b) => ({ bytes: Buffer.from(b), ...(body.type !== '' ? { type: body.type } : {}) }));
  // streams and form data: nothing the engines send (uploads are not a model call)
  throw new TypeError('this transport sends text and byte bodies only (no streams or form data)');
}

/** The answer's body, decoded when the server compressed it anyway. */
function answerBody(res: Http.IncomingMessage, method: string): Readable | null {
  if (method === 'HEAD' || NULL_BODY.has(res.statusCode ?? 0)) {
    res.resume();
    return null;
  }
  const coding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const z = coding === '' || coding === 'identity' ? null : nodeZlib();
  const decoder = z === null ? null : coding === 'gzip' || coding === 'x-gzip' ? z.createGunzip() : coding === 'deflate' ? z.createInflate() : coding === 'br' ? z.createBrotliDecompress() : null;
  if (decoder === null) return res;
  res.on('error', (e) => decoder.destroy(e));
  // a reader that stops early destroys the decoder: the request under it closes too
  decoder.on('close', () => res.destroy());
  return res.pipe(decoder);
}

let httpModule: typeof Http | undefined;
let httpsModule: typeof Https | undefined;
/** The scheme's module, required once (a require per request walks the module loader each time). */
function moduleFor(url: URL): typeof Http | typeof Https {
  return url.protocol === 'https:' ? (httpsModule ??= nodeHttps()) : (httpModule ??= nodeHttp());
}

interface Sent {
  res: Http.IncomingMessage;
  done: () => void;
}

/** One request/response exchange; the abort listener stays until the body is finished, so an abort mid-body errors it.
 *  A request that fails before any answer on a reused socket the server had closed goes again at once, once, on a
 *  fresh one (socket-reuse.ts): no backoff, no retry counted above. */
function exchange(url: URL, method: string, headers: Record<string, string>, bytes: Payload | null, signal: AbortSignal | null, agent: Http.Agent, reuse: SocketReuse, onWritten?: () => void): Promise<Sent> {
  return new Promise((resolve, reject) => {
    // the signal may have fired while the body was read or a redirect was drained
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const mod = moduleFor(url);
    let res: Http.IncomingMessage | undefined;
    let req: Http.ClientRequest;
    const onAbort = (): void => {
      const reason = abortReason(signal as AbortSignal);
      if (res !== undefined) res.destroy(reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError'));
      req.destroy();
      reject(reason);
    };
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    const send = (resent: boolean): void => {
      req = mod.request(url, { method, headers, agent });
      req.on('error', (e) => {
        if (res === undefined && !resent && !(signal?.aborted ?? false) && reuse.resendAfter(req, e, url, agent)) {
          send(true);
          return;
        }
        done();
        reject(fetchFailed(e));
      });
      req.on('response', (r) => {
        res = r;
        reuse.onResponse(url, r);
        r.on('close', done);
        resolve({ res: r, done });
      });
      if (onWritten !== undefined) req.once('finish', onWritten);
      req.end(bytes ?? undefined);
    };
    send(false);
  });
}

/** Whether this thread has loaded Node's fetch (the trace says it: the transport exists to spare that load). */
function undiciLoaded(): boolean {
  return (process as unknown as { moduleLoadList: string[] }).moduleLoadList.some((m) => m.endsWith('undici/undici'));
}

let first = true;

export function createHttpFetch(opts: HttpFetchOptions = {}): typeof fetch {
  // keep-alive pools of our own, each made on its scheme's first use (an http provider never loads tls); an idle
  // socket is dropped after 4 s as undici does (Node's http servers close theirs at 5 s; a server's Keep-Alive hint
  // shortens it), so a reused socket is rarely one the server is closing
  let httpAgent = opts.agents?.http;
  let httpsAgent = opts.agents?.https;
  const reuse = new SocketReuse();
  const agentFor = (url: URL): Http.Agent =>
    url.protocol === 'https:'
      ? (httpsAgent ??= new (nodeHttps().Agent)({ keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS }))
      : (httpAgent ??= new (nodeHttp().Agent)({ keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS }));

  async function send(input: string | URL, init: FetchInit = {}): Promise<HttpResponse> {
    let url: URL;
    try {
      url = new URL(String(input));
    } catch (e) {
      throw fetchFailed(e);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fetchFailed(new Error('unknown scheme'));
    const signal = init.signal ?? null;
    if (signal?.aborted) throw abortReason(signal);
    if (first) {
      first = false;
      traceOnce(`model transport: first request (undici ${undiciLoaded() ? 'loaded' : 'not loaded'})`);
    }

    let method = (init.method ?? 'GET').toUpperCase();
    const headers = new FetchHeaders(init.headers);
    const pending = bodyBytes(init.body);
    const given = pending instanceof Promise ? await pending : pending;
    let bytes = given.bytes;
    const type = given.type;
    if (bytes !== null && type !== undefined && !headers.has('content-type')) headers.set('content-type', type);
    if (!headers.has('accept')) headers.set('accept', '*/*');
    for (let hop = 0; ; hop++) {
      const wire = headers.record();
      if (bytes !== null) wire['content-length'] = String(payloadLength(bytes));
      const { res, done } = await exchange(url, method, wire, bytes, signal, agentFor(url), reuse, hop === 0 ? init.onWritten : undefined);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location !== undefined && init.redirect !== 'manual') {
        res.resume();
        done();
        const next = new URL(location, url);
        if (init.redirect === 'error') throw fetchFailed(new Error(`redirected to ${next.href} (redirect: "error")`));
        if (hop + 1 >= MAX_REDIRECTS) throw fetchFailed(new Error('redirect count exceeded'));
        if (next.origin !== url.origin) {
          throw fetchFailed(Object.assign(new Error(`the server redirects to another origin (${next.origin}): not followed, so no key is sent there; use that URL as the base URL`), { code: 'ERR_REDIRECT_CROSS_ORIGIN' }));
        }
        // fetch's rule: 303, and 301/302 after a POST, go on as a GET without the body
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          bytes = null;
          headers.delete('content-type');
        }
        url = next;
        continue;
      }
      return answerOf(status, res.statusMessage ?? '', FetchHeaders.fromRaw(res.rawHeaders), url.href, hop > 0, answerBody(res, method));
    }
  }
  return send as unknown as typeof fetch;
}

/** The Response of one answer: an error answer is read here whole (the SDK reads it whole anyway) and kept for
 *  errors.ts (error-bodies.ts); the pre-sent first request's answer, forwarded from another thread, is built here too. */
export async function answerOf(status: number, statusText: string, answer: FetchHeaders, url: string, redirected: boolean, body: Readable | null): Promise<HttpResponse> {
  if (status < 400 || body === null) return new HttpResponse(status, statusText, answer, url, redirected, body);
  const whole = Buffer.from(await new HttpResponse(status, '', answer, url, false, body).arrayBuffer());
  rememberErrorBody(answer, whole.toString('utf8'));
  return new HttpResponse(status, statusText, answer, url, redirected, Readable.from([whole]));
}

/** The transport the engines use unless a test passes its own fetch. */
export const httpFetch: typeof fetch = createHttpFetch();
