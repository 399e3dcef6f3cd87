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
  timer: { cancel(): void };
  method: string;
}

export interface RpcClientOptions {
  timeoutMs?: number;
  clock?: Clock;
  /** Label used in error messages (the target actor's name). */
  target: string;
}

/** Client side: lazily obtains its port (connect brokered by the main thread) and re-obtains it after a close. */
export class RpcClient {
  private port: Promise<MessagePort> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed: Error | undefined;
  private readonly clock: Clock;
  private readonly timeoutMs: number;

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
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(id);
        reject(runtimeError('RPC_TIMEOUT', `rpc ${this.opts.target}.${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, method });
      this.ensurePort().then(
        (port) => {
          if (!this.pending.has(id)) return;
          try {
            port.postMessage({ type: 'call', id, method, args } satisfies RpcMessage);
            traceOnce(`rpc ${this.opts.target}.${method} posted`);
          } catch (err) {
            this.settle(id, { ok: false, error: serializeError(err) });
          }
        },
        (err: unknown) => this.settle(id, { ok: false, error: serializeError(err) }),
      );
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
  }

  proxy<T>(): Remote<T> {
    return new Proxy({} as Remote<T>, {
      get: (_t, prop) =>
        // `then` must stay undefined or awaiting the proxy would call the remote.
        typeof prop === 'string' && prop !== 'then' ? (...args: unknown[]) => this.call(prop, args) : undefined,
    });
  }

  private ensurePort(): Promise<MessagePort> {
    if (!this.port) {
      const p = this.getPort().then((port) => {
        port.on('message', (m: unknown) => this.onMessage(m));
        port.once('close', () => {
          if (this.port === p) this.port = undefined;
          this.failAll(runtimeError('PORT_CLOSED', `connection to ${this.opts.target} closed (actor exited or restarted)`));
        });
        return port;
      });
      p.catch(() => {
        if (this.port === p) this.port = undefined;
      });
      this.port = p;
    }
    return this.port;
  }

  private onMessage(raw: unknown): void {
    const parsed = RpcMessageSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type !== 'result') return;
    this.settle(parsed.data.id, parsed.data);
  }

  private settle(id: number, r: { ok: boolean; value?: unknown; error?: SerializedError | undefined }): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.timer.cancel();
    if (r.ok) p.resolve(r.value);
    else p.reject(new RemoteError(r.error ?? { name: 'Error', message: `rpc ${this.opts.target}.${p.method} failed` }));
  }

  private failAll(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) {
      p.timer.cancel();
      p.reject(err);
    }
  }
}

const FORBIDDEN = new Set(['constructor', '__proto__', 'prototype', 'then', 'hasOwnProperty', 'toString', 'valueOf']);

/** Server side: answers calls on `port` with methods of `target`; errors cross as data. */
export function serveRpc(port: MessagePort, target: object): () => void {
  const onMessage = (raw: unknown): void => {
    const parsed = RpcMessageSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type !== 'call') return;
    const { id, method, args } = parsed.data;
    const fn = FORBIDDEN.has(method) ? undefined : (target as Record<string, unknown>)[method];
    const reply = (m: RpcMessage): void => {
      try {
        port.postMessage(m);
      } catch (err) {
        // The value could not be cloned: report that instead of leaving the caller hanging.
        port.postMessage({ type: 'result', id, ok: false, error: serializeError(err) } satisfies RpcMessage);
      }
    };
    if (typeof fn !== 'function') {
      reply({ type: 'result', id, ok: false, error: { name: 'RpcError', message: `no such method: ${method}`, code: 'NO_SUCH_METHOD' } });
      return;
    }
    // Settled by reply() on both paths; nothing is left to await.
    void Promise.resolve()
      .then(() => (fn as (...a: unknown[]) => unknown).apply(target, args))
      .then(
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
