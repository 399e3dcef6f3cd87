// Inside an actor worker: loads the actor module and implements ActorContext over the control port.
import type { MessagePort } from 'node:worker_threads';
import { randomUuid } from './lazy-builtins.js';
import type { ActorContext, ActorModule, Remote, SpawnSpec } from './actor.js';
import { realClock, abortError } from './clock.js';
import { trace } from './trace.js';
import { NamedTasks } from './tasks.js';
import { PauseController } from './pause.js';
import { LanePublisher, packEvents } from './publisher.js';
import { attachGroupTable, endUnreapedChildren, GROUP_TABLE_KEY, setProcessGroupSink } from './process-groups.js';
import { RpcClient, serveRpc, runtimeError } from './rpc.js';
import {
  EventSchema,
  RemoteError,
  SpawnSpecSchema,
  ToWorkerSchema,
  serializeError,
  type Event,
  type EventOf,
  type FromWorker,
  type SerializedError,
  type ToWorker,
} from './protocol/index.js';

type StartMsg = Extract<ToWorker, { type: 'start' }>;

/** How a worker finds the actor module a start message names (worker-bootstrap.ts builds one). */
export interface ActorModuleLoader {
  /** The module's namespace; its default export is the ActorModule. */
  load(spec: string): Promise<{ default?: unknown }>;
  /** Called right before the worker's last message (done, stopped): the code-cache training run writes then. */
  onEnd?(): void;
}
interface Waiter {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

export class WorkerActor {
  private readonly ctl = new AbortController();
  private readonly gate = new PauseController();
  private readonly childGates = new Map<string, PauseController>();
  private mod: ActorModule | undefined;
  private ctx: ActorContext | undefined;
  private publisher: LanePublisher | undefined;
  private tasks: NamedTasks | undefined;
  private readonly waiters = new Map<string, Waiter>();
  /** Spawns this actor cancelled whose reply (the child's cancel, with what it returned) is still awaited. */
  private readonly cancelling = new Map<string, () => void>();
  private givenUp = false;
  /** What run() returned: a stop that raced the run's end still hands it over (`stopped.value`). */
  private returned: unknown;
  private readonly served: (() => void)[] = [];
  private serveTarget: object | undefined;
  private readonly backlog: MessagePort[] = [];

  constructor(
    private readonly port: { postMessage(m: FromWorker, t?: readonly MessagePort[]): void },
    private readonly modules: ActorModuleLoader,
  ) {
    setProcessGroupSink((op, pgid) => this.post({ type: 'process_group', op, pgid }));
  }

  handle(raw: unknown): void {
    const parsed = ToWorkerSchema.safeParse(raw);
    if (!parsed.success) return;
    const m = parsed.data;
    switch (m.type) {
      case 'start':
        void this.start(m);
        return;
      case 'stop':
        void this.stop(m.reason, m.graceMs);
        return;
      case 'pause':
        if (m.paused) this.gate.pause();
        else this.gate.resume();
        return;
      case 'child_pause':
        if (m.paused) this.childGate(m.name).pause();
        else this.childGate(m.name).resume();
        return;
      case 'credit':
        this.publisher?.credit(m.n);
        return;
      case 'port':
        this.settle(m.requestId, m.port ? { ok: true, value: m.port } : { ok: false, error: m.error });
        return;
      case 'accept':
        this.accept(m.port as MessagePort);
        return;
      case 'spawn_result':
      case 'help_result':
        this.settle(m.requestId, m);
        return;
    }
  }

  private post(m: FromWorker, transfer?: readonly MessagePort[]): void {
    this.port.postMessage(m, transfer);
  }

  private settle(id: string, r: { ok: boolean; value?: unknown; error?: SerializedError | undefined }): void {
    const w = this.waiters.get(id);
    if (!w) return;
    this.waiters.delete(id);
    if (r.ok) w.resolve(r.value);
    else w.reject(new RemoteError(r.error ?? { name: 'Error', message: 'request failed' }));
  }

  /** Sends a request to the main thread and waits for the reply paired by requestId. `awaitCancel` (spawn): an abort
   *  sends the cancel and still waits for the reply, so what the stopped child returned (its usage) reaches this actor
   *  on the abort error (`result`); a stopping worker waits so for half its grace at most. */
  private request(build: (requestId: string) => FromWorker, signal?: AbortSignal, onAbort?: (id: string) => void, awaitCancel = false): Promise<unknown> {
    const requestId = randomUuid();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      let aborted = false;
      const abort = (): void => {
        if (!this.waiters.has(requestId)) return;
        onAbort?.(requestId);
        if (!awaitCancel) return void (this.waiters.delete(requestId), reject(abortError(signal)));
        aborted = true;
        this.cancelling.set(requestId, () => this.settle(requestId, { ok: false }));
        if (this.givenUp) this.giveUpCancelled();
      };
      const done = (): void => (signal?.removeEventListener('abort', abort), void this.cancelling.delete(requestId));
      this.waiters.set(requestId, {
        resolve: (v) => (done(), aborted ? reject(withResult(abortError(signal), v)) : resolve(v)),
        reject: (e) => (done(), reject(aborted ? withResult(abortError(signal), (e as { result?: unknown }).result) : e)),
      });
      signal?.addEventListener('abort', abort, { once: true });
      this.post(build(requestId));
    });
  }

  /** A stopping worker stops waiting for its cancelled children: its own run must end within its grace. */
  private giveUpCancelled(): void {
    this.givenUp = true;
    for (const give of [...this.cancelling.values()]) give();
  }

  private async start(m: StartMsg): Promise<void> {
    attachGroupTable(m.shared[GROUP_TABLE_KEY]);
    try {
      trace(`start ${m.name}`);
      const loaded = await this.modules.load(m.module);
      const mod = loaded.default as ActorModule | undefined;
      if (!mod || typeof mod.kind !== 'string' || (typeof mod.run !== 'function' && typeof mod.serve !== 'function')) {
        throw Object.assign(new Error(`${m.module}: default export is not an actor module (needs kind and run or serve)`), { code: 'INVALID_SPEC' });
      }
      this.mod = mod;
      if (m.paused) this.gate.pause();
      const ctx = this.buildContext(m, mod.kind);
      if (mod.serve) {
        this.serveTarget = await mod.serve(ctx, m.input);
        for (const p of this.backlog.splice(0)) this.accept(p);
        this.post({ type: 'started', kind: mod.kind, served: true });
        return;
      }
      this.post({ type: 'started', kind: mod.kind, served: false });
      const run = mod.run as NonNullable<ActorModule['run']>;
      let outcome: FromWorker;
      try {
        const value = await run(ctx, m.input);
        this.returned = value;
        outcome = { type: 'done', ok: true, value };
      } catch (err) {
        outcome = { type: 'done', ok: false, error: serializeError(err) };
      }
      await this.finish(outcome);
    } catch (err) {
      this.post({ type: 'start_failed', error: serializeError(err) });
    }
  }

  private async finish(outcome: FromWorker): Promise<void> {
    // Background tasks get a short grace so their last events are published before done; child processes
    // still running are ended and reaped here (the main thread kills their groups once the worker exits).
    await Promise.all([this.tasks?.waitAll(100), endUnreapedChildren(500)]);
    this.publisher?.flush();
    this.modules.onEnd?.();
    try {
      this.post(outcome);
    } catch (err) {
      this.post({ type: 'done', ok: false, error: serializeError(err) });
    }
  }

  private async stop(reason: string, graceMs: number): Promise<void> {
    setTimeout(() => this.giveUpCancelled(), Math.max(0, graceMs / 2)).unref();
    this.ctl.abort(Object.assign(new Error(`stopping: ${reason}`), { name: 'AbortError', code: 'CANCELLED' }));
    let error: SerializedError | undefined;
    try {
      if (this.mod?.stop && this.ctx) await this.mod.stop(this.ctx);
    } catch (err) {
      // A failing stop hook must not keep the actor alive, nor go unheard: the main thread reports it.
      error = serializeError(err);
    }
    // a stop hook that waited for the run resolves a few microtasks before start() records what run() returned:
    // one macrotask later every microtask has run, so `returned` is set if the run has ended
    await new Promise((r) => setImmediate(r));
    const grace = Math.max(0, graceMs - 10);
    const [running = []] = await Promise.all([this.tasks?.drain(grace), endUnreapedChildren(grace)]);
    this.publisher?.flush();
    for (const s of this.served) s();
    this.modules.onEnd?.();
    this.post({ type: 'stopped', running, ...(error ? { error } : {}), ...(this.returned !== undefined ? { value: this.returned } : {}) });
  }

  /** Mirrors of the pause state of this actor's children (one small controller per child name, never removed). */
  private childGate(name: string): PauseController {
    let g = this.childGates.get(name);
    if (!g) this.childGates.set(name, (g = new PauseController()));
    return g;
  }

  private accept(port: MessagePort): void {
    if (!this.serveTarget) {
      this.backlog.push(port);
      return;
    }
    this.served.push(serveRpc(port, this.serveTarget));
  }

  private buildContext(m: StartMsg, kind: string): ActorContext {
    const publisher = new LanePublisher((b) => this.post({ type: 'publish', events: packEvents(b.events), dropped: b.dropped }), m.creditWindow);
    const tasks = new NamedTasks({
      signal: this.ctl.signal,
      onError: (name, err) => publisher.publish({ type: 'log', level: 'error', message: `task ${name} failed: ${serializeError(err).message}` }),
    });
    this.publisher = publisher;
    this.tasks = tasks;
    const clients = new Map<string, RpcClient>();
    const ctx: ActorContext = {
      name: m.name,
      kind,
      taskId: m.taskId,
      delegationId: m.delegationId,
      signal: this.ctl.signal,
      clock: realClock,
      tasks,
      pause: this.gate,
      childPause: (name) => this.childGate(name),
      shared: Object.freeze({ ...m.shared }),
      publish: (event: Event) => publisher.publish(event),
      connect: <T>(actorName: string, opts?: { timeoutMs?: number; open?: boolean }): Remote<T> => {
        let c = clients.get(actorName);
        if (!c) {
          c = new RpcClient(() => this.request((requestId) => ({ type: 'connect', requestId, target: actorName })) as Promise<MessagePort>, {
            target: actorName,
            timeoutMs: opts?.timeoutMs ?? m.rpcTimeoutMs,
          });
          clients.set(actorName, c);
        }
        if (opts?.open === true) c.open();
        return c.proxy<T>();
      },
      spawn: async <I, O>(spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O> => {
        const checked = SpawnSpecSchema.safeParse(spec);
        if (!checked.success) throw runtimeError('INVALID_SPEC', `spawn ${spec.name}: ${checked.error.issues.map((i) => i.message).join('; ')}`);
        const sig = signal ? AbortSignal.any([signal, this.ctl.signal]) : this.ctl.signal;
        publisher.flush(); // what it published before asking goes first: the host dispatches it before the child runs
        return (await this.request((requestId) => ({ type: 'spawn', requestId, spec }), sig, (requestId) =>
          this.post({ type: 'spawn_cancel', requestId }), true,
        )) as O;
      },
      requestUserHelp: async (request, signal) => {
        const sig = signal ? AbortSignal.any([signal, this.ctl.signal]) : this.ctl.signal;
        publisher.flush(); // the request is published after what the actor published before it
        const raw = await this.request((requestId) => ({ type: 'help', requestId, request }), sig, (requestId) =>
          this.post({ type: 'help_cancel', requestId }),
        );
        const ev = EventSchema.parse(raw);
        if (ev.type !== 'user_help_response') throw new Error(`expected user_help_response, got ${ev.type}`);
        return ev satisfies EventOf<'user_help_response'>;
      },
    };
    this.ctx = ctx;
    return ctx;
  }
}

/** The same abort error, carrying what the cancelled child returned (a copy: the abort reason is shared). */
function withResult(err: Error, result: unknown): Error {
  if (result === undefined) return err;
  return Object.assign(new Error(err.message, { cause: err }), { name: err.name, code: (err as { code?: unknown }).code, result });
}
