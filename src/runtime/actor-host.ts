// Main-thread side of actor workers: warm spares, start, graceful stop then terminate, exit reasons.
import type { MessagePort, Worker } from 'node:worker_threads';
import type { ResourceLimits } from './actor.js';
import type { ChildHandle, Exit } from './child.js';
import type { PublishSource } from './dispatcher.js';
import { ACTOR_WORKER, distFile } from './dist-paths.js';
import { adoptPrestarted, bootWorker, releasePrestarted, startKey, threadFor, type Booting, type ThreadBundle } from './spare-boot.js';
import { NamedTasks } from './tasks.js';
import { GROUP_TABLE_KEY, groupTableBuffer, processGroups } from './process-groups.js';
import { FromWorkerSchema, serializeError, type Event, type FromWorker, type SerializedError, type ToWorker } from './protocol/index.js';

export const DEFAULT_PRELOAD = ['zod', 'openai', '@anthropic-ai/sdk'];

export interface ActorRequests {
  publish(actor: ActorHandle, events: unknown[], dropped: Record<string, number>): void;
  /** Every event the actor published is dispatched now (called before its exit is reported, before a spawn or help
   *  request of it is served). */
  settle?(actor: ActorHandle): void;
  connect(actor: ActorHandle, target: string): Promise<MessagePort>;
  spawn(actor: ActorHandle, requestId: string, spec: unknown): Promise<unknown>;
  spawnCancel(actor: ActorHandle, requestId: string): void;
  help(actor: ActorHandle, requestId: string, request: Extract<FromWorker, { type: 'help' }>['request']): Promise<Event>;
  helpCancel(actor: ActorHandle, requestId: string): void;
  /** The actor's stop() hook failed (a durability error such as the store's final flush). */
  stopFailed?(actor: ActorHandle, error: SerializedError): void;
}

export interface HostOptions {
  /** Modules a spare imports while idle: package names, or module paths under dist/ (`src/….js`). */
  preload?: string[];
  /** Booted spares kept warm for the default resource limits and preload. */
  spares?: number;
  /** True: a start does not top the pool up until the next warm() (keeps CPU for a latency-critical first start). */
  deferRefill?: boolean;
  creditWindow?: number;
  rpcTimeoutMs?: number;
  shared?: Record<string, SharedArrayBuffer>;
  resourceLimits?: ResourceLimits;
  /** Thread bundles: a preload one of them serves boots that bundle (code-cached) instead of the generic worker. */
  threads?: readonly ThreadBundle[];
  /** How far below the main thread every worker runs (Linux nice, thread-priority.ts); 0 or unset: at its priority. */
  workerNice?: number;
  requests: ActorRequests;
}

export interface ActorStart {
  name: string;
  module: string;
  input: unknown;
  taskId: string | null;
  delegationId: string | null;
  resourceLimits?: ResourceLimits | undefined;
  /** Another preload than the pool's (e.g. [] for a light service): a fresh worker, never a spare. */
  preload?: string[] | undefined;
  paused?: boolean;
}

export const DEFAULT_CREDIT_WINDOW = 1024;

export class ActorHost {
  private readonly spares = new Map<string, Booting[]>();
  private readonly background = new NamedTasks();
  private closed = false;
  private refillHeld: boolean;
  private preload: string[] | undefined;
  readonly live = new Set<ActorHandle>();

  constructor(readonly opts: HostOptions) {
    distFile(ACTOR_WORKER); // fail fast with the "run npm run build" message
    this.refillHeld = opts.deferRefill === true;
  }

  /** Starts booting the default spares without waiting for them. */
  prime(): void {
    if (this.closed) return;
    const n = this.opts.spares ?? 1;
    const key = this.poolKey();
    const list = this.spares.get(key) ?? [];
    while (list.length < n) list.push(this.boot(this.opts.resourceLimits, this.poolPreload()));
    this.spares.set(key, list);
  }

  /** Boots the default spares (and releases a deferred refill); resolves when they are ready.
   *  preload: what spares booted from now on import (e.g. once the run's model SDK is known). */
  async warm(preload?: string[]): Promise<void> {
    this.refillHeld = false;
    if (preload) this.preload = [...preload];
    this.prime();
    // a spare that fails to boot is dropped and replaced when taken; warm() waits for the pool, not for its health
    await Promise.all((this.spares.get(this.poolKey()) ?? []).map((b) => b.ready.catch(() => undefined)));
  }

  /** Spares (booting or ready) in the default pool. */
  spareCount(): number {
    return this.spares.get(this.poolKey())?.length ?? 0;
  }

  private poolPreload(): string[] {
    return this.preload ?? this.opts.preload ?? DEFAULT_PRELOAD;
  }

  private poolKey(): string {
    return startKey(this.opts.resourceLimits, this.poolPreload(), this.nice());
  }

  private nice(): number {
    return this.opts.workerNice ?? 0;
  }

  private boot(limits: ResourceLimits | undefined, preload: string[]): Booting {
    return adoptPrestarted(startKey(limits, preload, this.nice())) ?? bootWorker(limits, preload, this.opts.threads, this.nice());
  }

  /** A spare for `module`: a thread bundle's spare only runs the modules it carries, so another module gets a
   *  generic worker with the same preload (a fixture spawned where the pool preloads the agent, say). */
  private take(limits: ResourceLimits | undefined, preload: string[] | undefined, module: string): Booting {
    const eff = limits ?? this.opts.resourceLimits;
    const pre = preload ?? this.poolPreload();
    const list = this.spares.get(startKey(eff, pre, this.nice())) ?? [];
    const i = list.findIndex((b) => b.serves === undefined || b.serves.includes(module));
    if (i >= 0) return list.splice(i, 1)[0] as Booting;
    const thread = threadFor(pre, this.opts.threads ?? []);
    return thread && !thread.modules.includes(module) ? bootWorker(eff, pre, [], this.nice()) : this.boot(eff, pre);
  }

  /** Tops the default pool up again; called after a start so the new boot does not compete with it. */
  private refill(): void {
    const list = this.spares.get(this.poolKey());
    // Only the default pool is refilled: odd limits are rare and pay a cold start.
    if (!list || this.closed || this.refillHeld || list.length >= (this.opts.spares ?? 1)) return;
    const fresh = this.boot(this.opts.resourceLimits, this.poolPreload());
    list.push(fresh);
    void this.background.go('spare-refill', () => fresh.ready.catch(() => undefined)); // a failed boot is seen by whoever takes it
  }

  /** Starts an actor; resolves once its module is loaded (and serve() resolved for services). */
  async start(spec: ActorStart, signal?: AbortSignal): Promise<ActorHandle> {
    if (this.closed) throw Object.assign(new Error('runtime is shutting down'), { code: 'SHUTTING_DOWN' });
    if (signal?.aborted) throw Object.assign(new Error(`${spec.name}: start cancelled`), { code: 'CANCELLED' });
    const b = this.take(spec.resourceLimits, spec.preload, spec.module);
    const handle = new ActorHandle(b.worker, spec, this.opts.requests);
    this.live.add(handle);
    void handle.exited.then(() => this.live.delete(handle));
    handle.send({
      type: 'start',
      name: spec.name,
      module: spec.module,
      taskId: spec.taskId,
      delegationId: spec.delegationId,
      input: spec.input,
      shared: { ...this.opts.shared, [GROUP_TABLE_KEY]: groupTableBuffer() },
      paused: spec.paused ?? false,
      creditWindow: this.opts.creditWindow ?? DEFAULT_CREDIT_WINDOW,
      rpcTimeoutMs: this.opts.rpcTimeoutMs ?? 30_000,
    });
    // Cancelled while booting or loading its module: nothing of the actor ran yet, so terminate at once.
    const onAbort = (): void => handle.abortStart();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await handle.started;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.refill();
    }
    return handle;
  }

  /** Terminates spares; live actors are stopped by their supervisors. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.spares.values()].flat();
    this.spares.clear();
    await Promise.all([...all.map((b) => b.worker.terminate()), releasePrestarted()]);
    await this.background.waitAll(1000);
  }
}

/** Validates a worker message; publish (the hot path) is checked by hand, its events by EventSchema later. */
function parseFromWorker(raw: unknown): FromWorker | null {
  const r = raw as { type?: unknown; events?: unknown; dropped?: unknown } | null;
  if (r?.type === 'publish' && Array.isArray(r.events) && typeof r.dropped === 'object' && r.dropped !== null) {
    const dropped = r.dropped as Record<string, unknown>;
    if (Object.values(dropped).every((n) => Number.isInteger(n))) return { type: 'publish', events: r.events as unknown[], dropped: dropped as Record<string, number> };
  }
  const p = FromWorkerSchema.safeParse(raw);
  return p.success ? p.data : null;
}

let handleSeq = 0;

export class ActorHandle implements ChildHandle {
  readonly exited: Promise<Exit>;
  readonly started: Promise<void>;
  readonly startedAt = Date.now();
  kind = 'actor';
  served = false;
  srcDrops = 0;
  /** Paused on its own (not by its task's pause). */
  private ownPause = false;
  private isStarted = false;
  private outcome: Exit | undefined;
  private stopping: string | undefined;
  private fault: Exit | undefined;
  /** What run() returned while a stop was under way (from `done` or `stopped`): the shutdown exit keeps it. */
  private returned: unknown;
  private readonly pending = new Set<string>();
  /** Owner key of this worker's process groups in the main-thread registry. */
  private readonly groupOwner = `actor#${++handleSeq}`;
  private gone = false;

  constructor(
    readonly worker: Worker,
    readonly spec: ActorStart,
    private readonly req: ActorRequests,
  ) {
    let startedOk!: () => void;
    let startFail!: (e: Error) => void;
    this.started = new Promise((res, rej) => ((startedOk = res), (startFail = rej)));
    this.started.catch(() => undefined); // marks it handled: start() awaits it and rethrows
    this.exited = new Promise<Exit>((resolve) => {
      worker.on('message', (raw: unknown) => {
        const m = parseFromWorker(raw);
        if (m) this.onMessage(m, startedOk, startFail);
      });
      worker.on('error', (err: Error) => {
        const code = (err as { code?: unknown }).code;
        this.fault = code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { normal: false, reason: 'out_of_memory', error: { ...serializeError(err), code: 'ACTOR_OOM' } }
          : { normal: false, reason: `crashed: ${err.message}`, error: { ...serializeError(err), code: 'ACTOR_CRASHED' } };
      });
      worker.once('exit', (code) => {
        // Whatever ended the worker (stop, terminate, crash, OOM), no process group it started outlives it.
        this.gone = true;
        processGroups.killOwner(this.groupOwner);
        this.req.settle?.(this);
        const exit =
          this.stopping !== undefined ? this.shutdownExit()
          : this.outcome ?? this.fault ?? { normal: false, reason: `exited with code ${code}`, error: { name: 'ActorExited', message: `worker exited with code ${code}`, code: 'ACTOR_EXITED' } };
        startFail(Object.assign(new Error(`${spec.name} failed to start: ${exit.reason}`), { code: exit.error?.code ?? 'ACTOR_EXITED', cause: exit.error }));
        resolve(exit);
      });
    });
  }

  get name(): string {
    return this.spec.name;
  }

  /** Who its events and help requests are published as. */
  get source(): PublishSource {
    return { name: this.spec.name, taskId: this.spec.taskId, delegationId: this.spec.delegationId };
  }

  send(m: ToWorker, transfer?: readonly MessagePort[]): void {
    try {
      this.worker.postMessage(m, transfer);
    } catch {
      // The worker is gone; its exit event reports why.
    }
  }

  private onMessage(m: FromWorker, startedOk: () => void, startFail: (e: Error) => void): void {
    switch (m.type) {
      case 'ready':
        return;
      case 'started':
        this.isStarted = true;
        this.kind = m.kind;
        this.served = m.served;
        startedOk();
        return;
      case 'start_failed':
        this.outcome = { normal: false, reason: `start failed: ${m.error.message}`, error: m.error };
        startFail(Object.assign(new Error(`${this.name}: ${m.error.message}`), { code: m.error.code ?? 'ACTOR_CRASHED' }));
        void this.worker.terminate();
        return;
      case 'publish': {
        for (const n of Object.values(m.dropped)) this.srcDrops += n;
        this.req.publish(this, m.events, m.dropped);
        return;
      }
      case 'done':
        this.outcome = m.ok
          ? { normal: true, reason: 'normal', value: m.value }
          : { normal: false, reason: `crashed: ${m.error?.message ?? 'unknown'}`, error: m.error ?? { name: 'Error', message: 'unknown' } };
        void this.worker.terminate();
        return;
      case 'stopped':
        if (m.error) this.req.stopFailed?.(this, m.error);
        this.returned = m.value;
        void this.worker.terminate();
        return;
      case 'connect':
        this.track(m.requestId, this.req.connect(this, m.target), (ok, value, error) =>
          ok ? this.send({ type: 'port', requestId: m.requestId, port: value as MessagePort }, [value as MessagePort]) : this.send({ type: 'port', requestId: m.requestId, error }),
        );
        return;
      case 'spawn':
        // cause before effect across actors: what this actor published before asking (its delegation line) is
        // dispatched before the child it asks for can publish anything
        this.req.settle?.(this);
        this.track(m.requestId, this.req.spawn(this, m.requestId, m.spec), (ok, value, error) =>
          this.send({ type: 'spawn_result', requestId: m.requestId, ok, value, error }),
        );
        return;
      case 'spawn_cancel':
        this.req.spawnCancel(this, m.requestId);
        return;
      case 'help':
        this.req.settle?.(this); // its request is published on this thread: after what the actor published before it
        this.track(m.requestId, this.req.help(this, m.requestId, m.request), (ok, value, error) =>
          this.send({ type: 'help_result', requestId: m.requestId, ok, value, error }),
        );
        return;
      case 'help_cancel':
        this.req.helpCancel(this, m.requestId);
        return;
      case 'process_group':
        if (m.op === 'unregister') processGroups.remove(this.groupOwner, m.pgid);
        else {
          processGroups.add(this.groupOwner, m.pgid);
          if (this.gone) processGroups.killOwner(this.groupOwner);
        }
        return;
    }
  }

  private track(id: string, p: Promise<unknown>, reply: (ok: boolean, value?: unknown, error?: ReturnType<typeof serializeError>) => void): void {
    this.pending.add(id);
    void p.then(
      (v) => (this.pending.delete(id), reply(true, v)),
      (e: unknown) => (this.pending.delete(id), reply(false, undefined, serializeError(e))),
    );
  }

  /** A requested stop still hands over what run() returned before the worker ended (a cancelled agent's usage). */
  private shutdownExit(): Exit {
    const value = this.outcome?.normal === true ? this.outcome.value : this.returned;
    return value !== undefined ? { normal: true, reason: 'shutdown', value } : { normal: true, reason: 'shutdown' };
  }

  /** Ends a start that has not finished; the exit reads as a requested shutdown. */
  abortStart(): void {
    if (this.isStarted || this.stopping !== undefined || this.outcome !== undefined) return;
    this.stopping = 'cancelled';
    void this.worker.terminate();
  }

  accept(port: MessagePort): void {
    this.send({ type: 'accept', port }, [port]);
  }

  /** The task's pause (the whole task paused or continued): an actor paused on its own stays paused. */
  setPaused(paused: boolean): void {
    this.send({ type: 'pause', paused: paused || this.ownPause });
  }

  /** This actor's own pause (Ctrl-T `p`, `attach pause TASK ACTOR`): kept across a task resume, in the snapshot. */
  setOwnPaused(paused: boolean, taskPaused: boolean): void {
    this.ownPause = paused;
    this.send({ type: 'pause', paused: paused || taskPaused });
  }

  credit(n: number): void {
    if (n > 0) this.send({ type: 'credit', n });
  }

  async stop(reason: string, shutdownMs: number): Promise<void> {
    if (this.stopping === undefined && this.outcome === undefined) {
      this.stopping = reason;
      this.send({ type: 'stop', reason, graceMs: shutdownMs });
    }
    let timer: NodeJS.Timeout | undefined;
    const forced = new Promise<'forced'>((r) => (timer = setTimeout(() => r('forced'), shutdownMs)));
    const r = await Promise.race([this.exited, forced]);
    clearTimeout(timer);
    // Past the grace period (e.g. a worker spinning in for(;;){}): terminate is the only way out.
    if (r === 'forced') await this.worker.terminate();
    await this.exited;
  }

  describe(): { kind: string; mailboxDepth: number; drops: number; paused?: boolean } {
    return { kind: this.kind, mailboxDepth: this.pending.size, drops: this.srcDrops, ...(this.ownPause ? { paused: true } : {}) };
  }
}
