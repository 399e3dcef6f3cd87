// The DevTools protocol over Chrome's `--remote-debugging-pipe`: we write commands to its fd 3 and read replies
// and events from its fd 4, each message one JSON text ended by a NUL byte. No TCP port, no WebSocket library.
// Every command has a deadline and may be abandoned through a signal; close() rejects everything still pending.
import type { Readable, Writable } from 'node:stream';
import { BrowserError } from './errors.js';

export type CdpParams = Record<string, unknown>;
export type CdpListener = (params: CdpParams, sessionId: string | undefined) => void;

export interface SendOptions {
  /** Target session (flattened protocol); absent = the browser itself. */
  sessionId?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve(v: CdpParams): void;
  reject(e: Error): void;
}

interface Message {
  id?: number;
  method?: string;
  params?: CdpParams;
  result?: CdpParams;
  error?: { code?: number; message?: string };
  sessionId?: string;
}

export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Commands sent by notify(): their answers are dropped. */
  private readonly ignored = new Set<number>();
  private readonly listeners = new Map<string, Set<CdpListener>>();
  private chunks: Buffer[] = [];
  private closedWith: Error | null = null;
  private readonly onClose = new Set<(reason: Error) => void>();

  constructor(
    private readonly out: Writable,
    input: Readable,
  ) {
    input.on('data', (d: Buffer) => this.onData(d));
    input.on('close', () => this.close(new BrowserError('browser_closed', 'the browser closed its DevTools pipe')));
    const failed = (e: Error): void => this.close(new BrowserError('browser_closed', `the DevTools pipe failed: ${e.message}`));
    input.on('error', failed);
    out.on('error', failed);
  }

  /** Why the connection ended, or null while it is open. */
  get closedReason(): Error | null {
    return this.closedWith;
  }

  send(method: string, params: CdpParams, o: SendOptions): Promise<CdpParams> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (o.signal?.aborted) return Promise.reject(cancelled(method));
    const id = this.nextId++;
    return new Promise<CdpParams>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      // an abandoned command may still be answered later: its id is then unknown and the answer dropped
      const onAbort = (): void => (done(), reject(cancelled(method)));
      const timer = setTimeout(() => (done(), reject(new BrowserError('timeout', `the browser did not answer ${method} within ${o.timeoutMs} ms`))), o.timeoutMs);
      o.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { method, resolve: (v) => (done(), resolve(v)), reject: (e) => (done(), reject(e)) });
      this.write(id, method, params, o.sessionId);
    });
  }

  /** A command whose answer nobody waits for (replies to paused requests from an event handler). */
  notify(method: string, params: CdpParams, sessionId?: string): void {
    if (this.closedWith) return;
    const id = this.nextId++;
    this.ignored.add(id);
    this.write(id, method, params, sessionId);
  }

  /** Subscribes to an event; returns the unsubscribe. */
  on(method: string, fn: CdpListener): () => void {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(fn);
    return () => void set.delete(fn);
  }

  /** Called once with the reason when the connection ends (at once if it already has). */
  onClosed(fn: (reason: Error) => void): void {
    if (this.closedWith) fn(this.closedWith);
    else this.onClose.add(fn);
  }

  /** Ends the connection: every pending command rejects with `reason`; later sends reject at once. */
  close(reason: Error): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    for (const p of [...this.pending.values()]) p.reject(reason);
    this.pending.clear();
    this.listeners.clear();
    for (const fn of this.onClose) fn(reason);
    this.onClose.clear();
  }

  private write(id: number, method: string, params: CdpParams, sessionId: string | undefined): void {
    const m: Message = { id, method, params, ...(sessionId !== undefined ? { sessionId } : {}) };
    this.out.write(`${JSON.stringify(m)}\0`);
  }

  private onData(d: Buffer): void {
    let start = 0;
    for (let i = d.indexOf(0); i !== -1; i = d.indexOf(0, start)) {
      this.chunks.push(d.subarray(start, i));
      const text = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      start = i + 1;
      this.dispatch(text);
    }
    if (start < d.length) this.chunks.push(d.subarray(start));
  }

  private dispatch(text: string): void {
    let m: Message;
    try {
      m = JSON.parse(text) as Message;
    } catch {
      this.close(new BrowserError('browser_closed', 'the browser sent a message that is not JSON'));
      return;
    }
    if (typeof m.id === 'number') {
      if (this.ignored.delete(m.id)) return;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.error) p.reject(new BrowserError('cdp_error', `${p.method}: ${m.error.message ?? 'failed'}`));
      else p.resolve(m.result ?? {});
      return;
    }
    if (typeof m.method === 'string') for (const fn of [...(this.listeners.get(m.method) ?? [])]) fn(m.params ?? {}, m.sessionId);
  }
}

function cancelled(method: string): BrowserError {
  return new BrowserError('cancelled', `${method} was cancelled`);
}
