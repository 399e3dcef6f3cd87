// The Director's first model request, sent by the CLI's main thread before the Director's thread has loaded its
// bundle (bin/host/presend.ts computes it with the engine's own code), and adopted by that thread's engine: its fetch
// claims the answer if and only if the request it is about to send has the same method, URL and body bytes; otherwise
// the pre-sent request is aborted (its socket closed) and the engine's request goes out as usual. Exactly one answer is
// ever read; at most one request is pre-sent per process.
//
// The two sides share one SharedArrayBuffer (ctx.shared, PRESEND_SHARED_KEY): [0] the state, [1] the channel's id.
// The main thread moves NONE → OFFERED before it sends; the claiming engine moves OFFERED → TAKEN (claim) or NONE →
// TAKEN (its first request went out before any offer: none is made after it). The answer crosses on a
// BroadcastChannel named after the id: the head, then each chunk as it arrives, then its end or error.
import { Readable } from 'node:stream';
import { traceOnce } from '../../../runtime/trace.js';
import { answerOf } from './http-fetch.js';
import { nodeBodyOf, type HttpResponse } from './http-response.js';
import { FetchHeaders } from './web-shims.js';

export const PRESEND_SHARED_KEY = 'yagent.presend';

const NONE = 0;
const OFFERED = 1;
const TAKEN = 2;

export function createPresendState(): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(8);
  new Int32Array(sab)[1] = (Math.random() * 0x7fffffff) | 0;
  return sab;
}

/** The main thread has sent a first request the Director's first call may claim (its bytes must then be the same). */
export function presendOffered(sab: SharedArrayBuffer): boolean {
  return Atomics.load(new Int32Array(sab), 0) === OFFERED;
}

function channelName(state: Int32Array): string {
  return `yagent-presend-${process.pid}-${state[1]}`;
}

/** A failure of the pre-sent request, as data (a thread boundary): fetch's TypeError with its socket error as cause. */
interface WireError {
  message: string;
  name: string;
  cause?: { message: string; name: string; code?: unknown; errno?: unknown; syscall?: unknown };
}

type ToClaimer =
  | { type: 'declined' }
  | { type: 'failed'; error: WireError }
  | { type: 'head'; status: number; statusText: string; headers: [string, string][]; url: string; redirected: boolean; body: boolean }
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'end' }
  | { type: 'error'; error: WireError };
type ToSender = { type: 'claim'; method: string; url: string; body: string } | { type: 'abort' };

function wireError(e: unknown): WireError {
  const err = e instanceof Error ? e : new Error(String(e));
  const c = err.cause;
  const cause = c instanceof Error ? { message: c.message, name: c.name, code: (c as { code?: unknown }).code, errno: (c as { errno?: unknown }).errno, syscall: (c as { syscall?: unknown }).syscall } : undefined;
  return { message: err.message, name: err.name, ...(cause ? { cause } : {}) };
}

function fromWire(w: WireError): Error {
  const cause = w.cause ? Object.assign(new Error(w.cause.message), { name: w.cause.name, code: w.cause.code, errno: w.cause.errno, syscall: w.cause.syscall }) : undefined;
  const err = w.name === 'TypeError' ? new TypeError(w.message, cause ? { cause } : {}) : new Error(w.message, cause ? { cause } : {});
  if (w.name !== 'TypeError' && w.name !== 'Error') err.name = w.name;
  return err;
}

interface Sent {
  method: string;
  url: string;
  body: string;
}

type Answer = { status: number; statusText: string; headers: FetchHeaders; url: string; redirected: boolean; node: Readable | null };

/**
 * The main thread's side: `send` puts the one request on the wire (through `transport`, our node:http fetch) and keeps
 * its answer until the Director's engine claims it or `abort` drops it. Nothing is read of the answer before a claim.
 */
export class PresentOffer {
  private readonly state: Int32Array;
  private readonly ctl = new AbortController();
  private channel: InstanceType<typeof BroadcastChannel> | null = null;
  private sent: Sent | null = null;
  private answer: Promise<Answer> | null = null;
  private claimed = false;
  private done = false;
  private wrote: () => void = () => undefined;
  /** Settles once the request is handed to the OS, or has failed (never rejects). */
  readonly written = new Promise<void>((resolve) => (this.wrote = resolve));

  constructor(sab: SharedArrayBuffer) {
    this.state = new Int32Array(sab);
  }

  /** Sends the request once, unless the engine already sent its own (false: nothing was sent). */
  send(transport: typeof fetch, url: string, init: { method: string; headers: unknown; body: string }): boolean {
    if (this.sent !== null || this.done || Atomics.compareExchange(this.state, 0, NONE, OFFERED) !== NONE) return false;
    this.sent = { method: init.method.toUpperCase(), url, body: init.body };
    const channel = new BroadcastChannel(channelName(this.state));
    channel.unref();
    channel.onmessage = (ev: MessageEvent) => this.onMessage(ev.data as ToSender);
    this.channel = channel;
    this.answer = transport(url, { ...(init as RequestInit), signal: this.ctl.signal, onWritten: this.wrote } as RequestInit).then((r) => {
      const res = r as unknown as HttpResponse;
      return { status: res.status, statusText: res.statusText, headers: res.headers, url: res.url, redirected: res.redirected, node: nodeBodyOf(res) };
    });
    this.answer.catch(() => undefined); // read by the claimer (its own result) or dropped with the offer
    const settled = this.answer.then(this.wrote, this.wrote);
    settled.catch(() => undefined); // a failed request is written as far as it will be
    traceOnce('presend: the Director\'s first model request sent by the main thread');
    return true;
  }

  /** Drops an offer nobody claimed (the task ended or was cancelled first): its request is aborted, no claim is
   *  possible after this. A claimed answer belongs to the claimer (it aborts it itself). */
  abort(): void {
    if (this.claimed) return;
    Atomics.compareExchange(this.state, 0, NONE, TAKEN);
    this.drop();
  }

  private drop(): void {
    if (this.done) return;
    this.done = true;
    Atomics.store(this.state, 0, TAKEN);
    this.ctl.abort(new DOMException('the pre-sent request was not claimed', 'AbortError'));
    if (this.answer !== null) {
      const closed = this.answer.then((a) => a.node?.destroy(), () => undefined);
      closed.catch(() => undefined); // cleanup only: the request is aborted above
    }
    this.closeChannel();
  }

  private post(m: ToClaimer): void {
    this.channel?.postMessage(m);
  }

  private onMessage(m: ToSender): void {
    if (m.type === 'abort') {
      this.claimed = false;
      this.drop();
      return;
    }
    const s = this.sent;
    if (this.claimed || this.done || s === null || m.method.toUpperCase() !== s.method || m.url !== s.url || m.body !== s.body) {
      traceOnce('presend: the Director\'s first request differs from the pre-sent one: aborted, sent again');
      this.post({ type: 'declined' });
      this.drop();
      return;
    }
    this.claimed = true;
    traceOnce('presend: claimed by the Director');
    const forwarded = (this.answer as Promise<Answer>).then(
      (a) => this.forward(a),
      (e: unknown) => {
        // the claimer's own call failed: connection refused, reset, … (an HTTP error answer is an answer)
        this.post({ type: 'failed', error: wireError(e) });
        this.finish();
      },
    );
    forwarded.catch(() => undefined); // forward() throws nothing: a closed channel drops what is posted
  }

  private forward(a: Answer): void {
    this.post({ type: 'head', status: a.status, statusText: a.statusText, headers: [...a.headers.entries()], url: a.url, redirected: a.redirected, body: a.node !== null });
    const node = a.node;
    if (node === null) {
      this.finish();
      return;
    }
    node.on('data', (b: Buffer) => this.post({ type: 'chunk', bytes: b }));
    node.once('end', () => (this.post({ type: 'end' }), this.finish()));
    node.once('error', (e) => (this.post({ type: 'error', error: wireError(e) }), this.finish()));
  }

  private finish(): void {
    this.done = true;
    this.closeChannel();
  }

  private closeChannel(): void {
    this.channel?.close();
    this.channel = null;
  }
}

/**
 * The claiming side (the Director's engine, under callSignalFetch): its first request claims the offer when one is
 * made (OFFERED); every other request, and a declined claim, goes to `inner`.
 */
export function claimingFetch(sab: SharedArrayBuffer, inner: typeof fetch): typeof fetch {
  const state = new Int32Array(sab);
  let first = true;
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    if (!first) return inner(input, init);
    first = false;
    // no offer yet: none is made from now on; an offer: this request takes it (claim or decline)
    if (Atomics.compareExchange(state, 0, NONE, TAKEN) !== OFFERED || Atomics.compareExchange(state, 0, OFFERED, TAKEN) !== OFFERED) return inner(input, init);
    if (typeof init?.body !== 'string') {
      // nothing the engines send: the offer cannot be this request, its sender drops it
      const ch = new BroadcastChannel(channelName(state));
      ch.postMessage({ type: 'claim', method: '', url: '', body: '' } satisfies ToSender);
      ch.close();
      return inner(input, init);
    }
    return claim(state, String(input), init as RequestInit & { body: string }, inner);
  }) as typeof fetch;
}

function claim(state: Int32Array, url: string, init: RequestInit & { body: string }, inner: typeof fetch): Promise<Response> {
  const signal = init.signal ?? null;
  const channel = new BroadcastChannel(channelName(state));
  return new Promise<Response>((resolve, reject) => {
    let body: Readable | null = null;
    let settled = false;
    const close = (): void => {
      signal?.removeEventListener('abort', onAbort);
      channel.close();
    };
    const onAbort = (): void => {
      const reason = signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
      channel.postMessage({ type: 'abort' } satisfies ToSender);
      close();
      if (body !== null) body.destroy(reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError'));
      if (!settled) {
        settled = true;
        reject(reason);
      }
    };
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    channel.onmessage = (ev: MessageEvent) => {
      const m = ev.data as ToClaimer;
      switch (m.type) {
        case 'declined':
          close();
          settled = true;
          resolve(inner(url, init));
          return;
        case 'failed':
          close();
          settled = true;
          reject(fromWire(m.error));
          return;
        case 'head': {
          settled = true;
          // the body is pushed as it arrives; nothing to pull (the main thread forwards every chunk)
          body = m.body ? new Readable({ read: () => undefined }) : null;
          if (body === null) close();
          resolve(answerOf(m.status, m.statusText, new FetchHeaders(m.headers), m.url, m.redirected, body) as unknown as Promise<Response>);
          return;
        }
        case 'chunk':
          body?.push(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
          return;
        case 'end':
          close();
          body?.push(null);
          return;
        case 'error':
          close();
          body?.destroy(fromWire(m.error));
          return;
      }
    };
    channel.postMessage({ type: 'claim', method: (init.method ?? 'GET').toUpperCase(), url, body: init.body } satisfies ToSender);
  });
}
