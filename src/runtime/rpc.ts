// Thin typed RPC over a MessagePort: every call times out, every pending call rejects when the port closes.
import type { MessagePort } from 'node:worker_threads';
import type { Clock, Remote } from './actor.js';
import { realClock } from './clock.js';
import { RemoteError, RpcMessageSchema, serializeError, type RpcMessage, type SerializedError } from './protocol/index.js';
import { traceOnce } from './trace.js';

export const DEFAULT_RPC_TIMEOUT_MS = 30_000;

export function runtimeError(code: string, message: string, name = 'RuntimeError'): RemoteError {
  return new RemoteError({ name, message, code });
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  method: string;
  /** Until the port is brokered: what to post once it is. */
  args: unknown[] | undefined;
  /** clock.now() after which the call times out (one sweep timer serves every pending call). */
  deadline: number;
  timeoutMs: number;
}

/** The sweep's timer. On the real clock a Node timer, unref'd while nothing is pending (as a cancelled one would be). */
interface SweepTimer {
  cancel(): void;
  ref?(): void;
  unref?(): void;
}

export interface RpcClientOptions {
  timeoutMs?: number;
  clock?: Clock;
  /** Label used in error messages (the target actor's name). */
  target: string;
}

type CallMessage = Extract<RpcMessage, { type: 'call' }>;
type ResultMessage = Extract<RpcMessage, { type: 'result' }>;

/** The hot shapes checked by hand: each accepts a subset of what `RpcMessageSchema` accepts, and anything else goes
 *  through zod, which rejects a bad message with its issue (`BAD_MESSAGE`). A plain object read costs well under a
 *  microsecond; zod's parse of the union several (issue 29). */
function isCall(m: unknown): m is CallMessage {
  if (typeof m !== 'object' || m === null) return false;
  const c = m as Record<string, unknown>;
  return c.type === 'call' && Number.isSafeInteger(c.id) && typeof c.method === 'string' && Array.isArray(c.args);
}

/** A result without an error (errors are rare: their shape goes through zod). */
function isPlainResult(m: unknown): m is ResultMessage {
  if (typeof m !== 'object' || m === null) return false;
  const r = m as Record<string, unknown>;
  return r.type === 'result' && Number.isSafeInteger(r.id) && typeof r.ok === 'boolean' && r.error === undefined;
}

/** A message that failed the schema but names a call: the id to answer, else null (then it is dropped). */
function badMessageId(raw: unknown, type: 'call' | 'result'): number | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const m = raw as Record<string, unknown>;
  return m.type === type && Number.isSafeInteger(m.id) ? (m.id as number) : null;
}

function issueText(err: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return err.issues.map((i) => `${i.path.map(String).join('.') || '(message)'}: ${i.message}`).join('; ');
}

/** Client side: lazily obtains its port (connect brokered by the main thread) and re-obtains it after a close. */
export class RpcClient {
  private port: Promise<MessagePort> | undefined;
  /** The brokered port once every call queued before it has been posted: later calls post at once. */
  private live: MessagePort | undefined;
  /** Ids of calls waiting for the port, in call order. */
  private queued: number[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed: Error | undefined;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private sweepTimer: SweepTimer | undefined;
  /** When the sweep timer fires (Infinity: none armed). */
  private sweepAt = Infinity;
  private idle = true;

  constructor(
    private readonly getPort: () => Promise<MessagePort>,
    private readonly opts: RpcClientOptions,
  ) {
    this.clock = opts.clock ?? realClock;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  call(method: string, args: unknown[], timeoutMs = this.timeoutMs): Promise<unknown> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const deadline = this.clock.now() + timeoutMs;
      const entry: Pending = { resolve, reject, method, args: undefined, deadline, timeoutMs };
      this.pending.set(id, entry);
      this.armSweep(deadline);
      if (this.idle) {
        this.idle = false;
        this.sweepTimer?.ref?.();
      }
      const port = this.live;
      if (port !== undefined) {
        this.post(port, id, method, args);
        return;
      }
      entry.args = args;
      this.queued.push(id);
      this.ensurePort().catch(() => undefined); // its failure settles the queued calls (ensurePort)
    });
  }

  /** Brokers the port now. A failure here is not lost: the next call asks again and rejects with it. */
  open(): void {
    if (this.closed) return;
    this.ensurePort().catch(() => undefined);
  }

  /** Rejects everything pending and refuses new calls. */
  close(reason = 'rpc client closed'): void {
    this.closed = runtimeError('PORT_CLOSED', reason);
    this.failAll(this.closed);
    void this.port?.then((p) => p.close(), () => undefined);
    this.port = undefined;
    this.live = undefined;
  }

  proxy<T>(): Remote<T> {
    const methods = new Map<string, (...args: unknown[]) => Promise<unknown>>();
    return new Proxy({} as Remote<T>, {
      get: (_t, prop) => {
        // `then` must stay undefined or awaiting the proxy would call the remote.
        if (typeof prop !== 'string' || prop === 'then') return undefined;
        let fn = methods.get(prop);
        if (fn === undefined) {
          fn = (...args: unknown[]) => this.call(prop, args);
          methods.set(prop, fn);
        }
        return fn;
      },
    });
  }

  private post(port: MessagePort, id: number, method: string, args: unknown[]): void {
    try {
      port.postMessage({ type: 'call', id, method, args } satisfies RpcMessage);
      traceOnce(`rpc ${this.opts.target}.${method} posted`);
    } catch (err) {
      this.settle(id, { ok: false, error: serializeError(err) });
    }
  }

  private ensurePort(): Promise<MessagePort> {
    if (!this.port) {
      const p = this.getPort().then((port) => {
        port.on('message', (m: unknown) => this.onMessage(m));
        port.once('close', () => {
          if (this.port === p) {
            this.port = undefined;
            this.live = undefined;
          }
          this.failAll(runtimeError('PORT_CLOSED', `connection to ${this.opts.target} closed (actor exited or restarted)`));
        });
        return port;
      });
      this.port = p;
      p.then(
        (port) => {
          if (this.port !== p) return;
          // the calls made while it was brokered, in order, before any later call posts directly
          const queued = this.queued;
          this.queued = [];
          for (const id of queued) {
            const c = this.pending.get(id);
            if (c === undefined) continue;
            const args = c.args ?? [];
            c.args = undefined;
            this.post(port, id, c.method, args);
          }
          this.live = port;
        },
        (err: unknown) => {
          if (this.port === p) this.port = undefined;
          const queued = this.queued;
          this.queued = [];
          for (const id of queued) this.settle(id, { ok: false, error: serializeError(err) });
        },
      );
    }
    return this.port;
  }

  /** One timer for every pending call, armed for the earliest deadline; a call that ends leaves it armed. */
  private armSweep(deadline: number): void {
    if (deadline >= this.sweepAt) return;
    this.sweepTimer?.cancel();
    this.sweepAt = deadline;
    const ms = Math.max(0, deadline - this.clock.now());
    if (this.clock === realClock) {
      const t = setTimeout(() => this.sweep(), ms);
      this.sweepTimer = { cancel: () => clearTimeout(t), ref: () => t.ref(), unref: () => t.unref() };
      if (this.idle) t.unref();
    } else {
      this.sweepTimer = this.clock.setTimeout(() => this.sweep(), ms);
    }
  }

  /** Times out every call past its deadline (each ends once: it leaves `pending` first), then re-arms. */
  private sweep(): void {
    this.sweepTimer = undefined;
    this.sweepAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [id, p] of this.pending) {
      if (p.deadline <= now) {
        this.pending.delete(id);
        p.reject(runtimeError('RPC_TIMEOUT', `rpc ${this.opts.target}.${p.method} timed out after ${p.timeoutMs} ms`));
      } else if (p.deadline < next) next = p.deadline;
    }
    if (next !== Infinity) this.armSweep(next);
    this.markIdle();
  }

  private markIdle(): void {
    if (this.pending.size > 0 || this.idle) return;
    this.idle = true;
    this.sweepTimer?.unref?.();
  }

  private onMessage(raw: unknown): void {
    if (isPlainResult(raw)) {
      this.settle(raw.id, raw);
      return;
    }
    const parsed = RpcMessageSchema.safeParse(raw);
    if (parsed.success) {
      if (parsed.data.type === 'result') this.settle(parsed.data.id, parsed.data);
      return;
    }
    // a reply we cannot read still ends its call, now and with the reason, rather than at its timeout
    const id = badMessageId(raw, 'result');
    const p = id === null ? undefined : this.pending.get(id);
    if (id === null || p === undefined) return;
    this.settle(id, { ok: false, error: { name: 'RpcError', code: 'BAD_MESSAGE', message: `rpc ${this.opts.target}.${p.method}: malformed reply (${issueText(parsed.error)})` } });
  }

  private settle(id: number, r: { ok: boolean; value?: unknown; error?: SerializedError | undefined }): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.markIdle();
    if (r.ok) p.resolve(r.value);
    else p.reject(new RemoteError(r.error ?? { name: 'Error', message: `rpc ${this.opts.target}.${p.method} failed` }));
  }

  private failAll(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    this.queued = [];
    this.sweepTimer?.cancel();
    this.sweepTimer = undefined;
    this.sweepAt = Infinity;
    this.idle = true;
    for (const p of all) p.reject(err);
  }
}

const FORBIDDEN = new Set(['constructor', '__proto__', 'prototype', 'then', 'hasOwnProperty', 'toString', 'valueOf']);

/** Server side: answers calls on `port` with methods of `target`; errors cross as data. */
export function serveRpc(port: MessagePort, target: object): () => void {
  const reply = (m: RpcMessage): void => {
    try {
      port.postMessage(m);
    } catch (err) {
      // The value could not be cloned: report that instead of leaving the caller hanging.
      port.postMessage({ type: 'result', id: m.id, ok: false, error: serializeError(err) } satisfies RpcMessage);
    }
  };
  const onMessage = (raw: unknown): void => {
    let call: CallMessage;
    if (isCall(raw)) call = raw;
    else {
      const parsed = RpcMessageSchema.safeParse(raw);
      if (!parsed.success) {
        const id = badMessageId(raw, 'call');
        if (id !== null) reply({ type: 'result', id, ok: false, error: { name: 'RpcError', code: 'BAD_MESSAGE', message: `malformed rpc call (${issueText(parsed.error)})` } });
        return;
      }
      if (parsed.data.type !== 'call') return;
      call = parsed.data;
    }
    const { id, method, args } = call;
    const fn = FORBIDDEN.has(method) ? undefined : (target as Record<string, unknown>)[method];
    if (typeof fn !== 'function') {
      reply({ type: 'result', id, ok: false, error: { name: 'RpcError', message: `no such method: ${method}`, code: 'NO_SUCH_METHOD' } });
      return;
    }
    let out: unknown;
    try {
      out = (fn as (...a: unknown[]) => unknown).apply(target, args);
    } catch (err) {
      reply({ type: 'result', id, ok: false, error: serializeError(err) });
      return;
    }
    if (typeof (out as { then?: unknown } | null)?.then !== 'function') {
      reply({ type: 'result', id, ok: true, value: out });
      return;
    }
    // Settled by reply() on both paths; nothing is left to await.
    void Promise.resolve(out).then(
      (value) => reply({ type: 'result', id, ok: true, value }),
      (err: unknown) => reply({ type: 'result', id, ok: false, error: serializeError(err) }),
    );
  };
  port.on('message', onMessage);
  return () => {
    port.off('message', onMessage);
    port.close();
  };
}
