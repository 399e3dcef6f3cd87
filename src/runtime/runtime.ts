// The runtime facade: the only way to start workers, tasks and background promises in yagent.
import type { MessagePort } from 'node:worker_threads';
import type { Clock, Remote, RestartType, SpawnSpec } from './actor.js';
import { ActorHost, type ActorHandle, type ActorStart } from './actor-host.js';
import type { ChildSpec, Exit, TreeNode } from './child.js';
import type { Strategy } from './child-spec.js';
import { realClock } from './clock.js';
import { Dispatcher } from './dispatcher.js';
import { HelpDesk, type HelpResponseInput } from './help-desk.js';
import { PauseController } from './pause.js';
import { RpcClient, runtimeError } from './rpc.js';
import { Supervisor } from './supervisor.js';
import { NamedTasks } from './tasks.js';
import { ServiceBroker } from './service-broker.js';
import { createCpuPool, type CpuPool } from './cpu-pool.js';
import { CPU_SERVICE, CpuHub, type CpuService } from './cpu-service.js';
import { CRITICAL_EVENT_TYPES, EventSchema, RemoteError, SpawnSpecSchema, type Event, type SerializedError } from './protocol/index.js';
import type { RuntimeOptions, ServiceSpec, TaskHandle } from './runtime-types.js';
export type { RuntimeOptions, ServiceSpec, TaskHandle };

export const DEFAULT_SHUTDOWN_MS = 5000;

const childKey = (taskId: string, name: string): string => `${taskId}\n${name}`;

export class Runtime {
  readonly dispatcher: Dispatcher;
  /** Background promises of the main thread (clients, servers): named and drainable. */
  readonly tasks = new NamedTasks();
  readonly help: HelpDesk;
  private host!: ActorHost;
  private root!: Supervisor;
  private services!: Supervisor;
  private taskSup!: Supervisor;
  private readonly taskMap = new Map<string, TaskHandle>();
  /** Pause gates of tasks announced but not started yet: a pause given in that window is kept, not lost. */
  private readonly reserved = new Map<string, PauseController>();
  private readonly broker: ServiceBroker;
  private readonly serviceSpecs: ChildSpec[] = [];
  private readonly pools: CpuPool[] = [];
  private hub: CpuHub | undefined;
  private readonly spawnCancels = new Map<string, AbortController>();
  /** Which actor spawned a live child (task + child name): a pause of that child alone is forwarded to it. */
  private readonly spawnedBy = new Map<string, ActorHandle>();
  private readonly clock: Clock;
  private readonly stopErrors: { actor: string; error: SerializedError }[] = [];

  private constructor(private readonly opts: RuntimeOptions) {
    this.clock = opts.clock ?? realClock;
    this.dispatcher = new Dispatcher({ clock: this.clock, ...opts.dispatcher });
    this.help = new HelpDesk(opts.hasResponder ?? true, (source, event) => this.dispatcher.publish(source, event));
    this.broker = new ServiceBroker(this.clock, opts.connectWaitMs ?? 5000);
  }

  static async start(opts: RuntimeOptions = {}): Promise<Runtime> {
    const rt = new Runtime(opts);
    rt.host = new ActorHost({
      preload: opts.preload,
      spares: opts.spares,
      deferRefill: opts.deferRefill,
      creditWindow: opts.creditWindow,
      rpcTimeoutMs: opts.rpcTimeoutMs,
      shared: opts.shared,
      resourceLimits: opts.resourceLimits,
      ...(opts.threads ? { threads: opts.threads } : {}),
      requests: {
        publish: (a, events, dropped) => rt.onPublish(a, events, dropped),
        connect: (_a, target) => rt.brokerPort(target),
        spawn: (a, requestId, spec) => rt.onSpawnRequest(a, requestId, spec),
        spawnCancel: (_a, requestId) => rt.spawnCancels.get(requestId)?.abort(runtimeError('CANCELLED', 'spawn cancelled by parent')),
        help: (a, requestId, request) => rt.help.ask(requestId, { name: a.name, taskId: a.spec.taskId, delegationId: a.spec.delegationId }, request),
        helpCancel: (_a, requestId) => rt.help.cancel(requestId),
        stopFailed: (a, error) => void rt.stopErrors.push({ actor: a.name, error }),
      },
    });
    const common = { clock: opts.clock, random: opts.random, onEvent: opts.onSupervisorEvent };
    // Fresh supervisors on every (re)start; services come back with every service spec seen so far.
    const startServices = async (): Promise<Supervisor> =>
      (rt.services = await Supervisor.start({ name: 'services', ...common }, rt.serviceSpecs));
    const startTasks = async (): Promise<Supervisor> => {
      for (const id of [...rt.taskMap.keys()]) rt.forgetTask(id);
      return (rt.taskSup = await Supervisor.start({ name: 'tasks', intensity: 1000, ...common }));
    };
    // Services start first and stop last: tasks may need the store while they wind down.
    rt.root = await Supervisor.start({ name: 'root', kind: 'root', ...common }, [
      { id: 'services', kind: 'supervisor', restart: 'permanent', shutdownMs: DEFAULT_SHUTDOWN_MS, start: startServices },
      { id: 'tasks', kind: 'supervisor', restart: 'permanent', shutdownMs: DEFAULT_SHUTDOWN_MS, start: startTasks },
    ]);
    // Spares boot in the background: the first start takes one even while it is still booting.
    rt.host.prime();
    return rt;
  }

  /** A piscina pool for stateless CPU jobs (module under dist/); closed by shutdown(). */
  cpuPool(module: string | null, opts?: { maxThreads?: number; idleTimeoutMs?: number }): CpuPool {
    const pool = createCpuPool(module, opts);
    this.pools.push(pool);
    return pool;
  }

  /** The process's one pool for stateless jobs (`*-job.js` modules), also served to workers as CPU_SERVICE.
   *  One thread: each job module's state (a tokenizer's ranks, ~60-150 MB) is loaded once per process. */
  get cpu(): CpuService {
    return this.cpuHub().service;
  }

  private cpuHub(): CpuHub {
    return (this.hub ??= new CpuHub(this.cpuPool(null, { maxThreads: 1, idleTimeoutMs: 600_000 })));
  }

  /** Resolves when the warm spare pool is full again (benchmarks, tests, latency-sensitive starts);
   *  releases a deferRefill hold. preload: what spares booted from now on import instead. */
  warm(opts: { preload?: string[] } = {}): Promise<void> {
    return this.host.warm(opts.preload);
  }

  get supervisor(): Supervisor {
    return this.root;
  }

  /** Starts a long-lived served actor (e.g. the store) under the services supervisor. */
  async startService<I>(spec: ServiceSpec<I>): Promise<void> {
    const child = this.actorChild(
      { name: spec.name, module: spec.module, input: spec.input, taskId: null, delegationId: null, resourceLimits: spec.resourceLimits, preload: spec.preload },
      spec.restart ?? 'permanent',
      spec.shutdownMs ?? DEFAULT_SHUTDOWN_MS,
    );
    const iso = spec.isolate;
    const sup = `${spec.name}-sup`;
    const common = { clock: this.opts.clock, random: this.opts.random, onEvent: this.opts.onSupervisorEvent };
    const top: ChildSpec = iso === undefined ? child
      : { id: sup, kind: 'supervisor', restart: 'temporary', shutdownMs: child.shutdownMs, start: () => Supervisor.start({ name: sup, ...common, ...iso }, [child]) };
    await this.services.startChild(top);
    this.serviceSpecs.push(top);
  }

  /** Creates the task's supervisor (task:<id>) with its pause gate; children are spawned into it. */
  async startTask(taskId: string, opts: { strategy?: Strategy } = {}): Promise<TaskHandle> {
    const existing = this.taskMap.get(taskId);
    if (existing) return existing;
    const sup = await Supervisor.start({
      name: `task:${taskId}`,
      kind: 'task',
      strategy: opts.strategy ?? 'one_for_one',
      ...this.opts.supervision,
      clock: this.opts.clock,
      random: this.opts.random,
      onEvent: this.opts.onSupervisorEvent,
      describe: () => this.dispatcher.scopeStats(taskId),
    });
    const pause = this.reserved.get(taskId) ?? new PauseController();
    this.reserved.delete(taskId);
    const handle: TaskHandle = { id: taskId, supervisor: sup, pause, spawn: (spec, signal) => this.spawn(taskId, spec, signal) };
    await this.taskSup.startChild({ id: `task:${taskId}`, kind: 'task', restart: 'temporary', shutdownMs: DEFAULT_SHUTDOWN_MS, start: () => Promise.resolve(sup) }, () => this.forgetTask(taskId));
    this.taskMap.set(taskId, handle);
    return handle;
  }

  /** Announces a task about to start (a client already holds its id): pause/resume reach it from now on. */
  reserveTask(taskId: string): void {
    if (!this.taskMap.has(taskId) && !this.reserved.has(taskId)) this.reserved.set(taskId, new PauseController());
  }

  task(taskId: string): TaskHandle | undefined {
    return this.taskMap.get(taskId);
  }

  /** Stops a task's tree, publishes its drop report, and forgets it. */
  async endTask(taskId: string): Promise<void> {
    this.reserved.delete(taskId);
    if (!this.taskMap.has(taskId)) return;
    await this.taskSup.terminateChild(`task:${taskId}`);
    this.forgetTask(taskId);
  }

  /** Starts an actor under a task's supervisor; resolves with its run() result. */
  async spawn<I, O>(taskId: string, spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O> {
    const checked = SpawnSpecSchema.safeParse(spec);
    if (!checked.success) throw runtimeError('INVALID_SPEC', `spawn ${String(spec?.name)}: ${checked.error.issues.map((i) => i.message).join('; ')}`);
    const task = this.taskMap.get(taskId);
    if (!task) throw runtimeError('NOT_FOUND', `no task ${taskId}`);
    if (signal?.aborted) throw runtimeError('CANCELLED', `spawn ${spec.name} cancelled before start`);
    let final!: (e: Exit) => void;
    const exit = new Promise<Exit>((r) => (final = r));
    const start: ActorStart = { name: spec.name, module: spec.module, input: spec.input, taskId, delegationId: spec.delegationId ?? null, resourceLimits: spec.resourceLimits };
    let cancelled = false;
    // Listening before the start: a cancel while the worker boots or loads its module must not be lost.
    const onAbort = (): void => {
      cancelled = true;
      void this.tasks.go(`cancel:${spec.name}`, () => task.supervisor.terminateChild(spec.name, 'cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await task.supervisor.startChild(this.actorChild(start, spec.restart ?? 'temporary', spec.shutdownMs ?? DEFAULT_SHUTDOWN_MS, signal), final);
    } catch (err) {
      signal?.removeEventListener('abort', onAbort);
      if (cancelled) throw runtimeError('CANCELLED', `${spec.name} cancelled during start`);
      throw err;
    }
    const e = await exit;
    signal?.removeEventListener('abort', onAbort);
    this.help.actorGone(taskId, spec.name);
    if (e.normal && e.reason === 'normal') return e.value as O;
    // what a cancelled actor returned before it stopped (its usage) travels with the cancel: the caller decides
    if (cancelled) throw Object.assign(runtimeError('CANCELLED', `${spec.name} cancelled`), { result: e.value });
    const code = e.reason === 'out_of_memory' ? 'ACTOR_OOM' : e.normal ? 'ACTOR_EXITED' : 'ACTOR_CRASHED';
    throw new RemoteError({ name: 'ActorError', message: `${spec.name}: ${e.reason}`, code, cause: e.error });
  }

  /** Typed RPC from the main thread to a served actor. */
  connect<T>(name: string, opts: { timeoutMs?: number } = {}): Remote<T> {
    return new RpcClient(() => this.brokerPort(name), { target: name, timeoutMs: opts.timeoutMs ?? this.opts.rpcTimeoutMs, clock: this.clock }).proxy<T>();
  }

  /** Publishes from the main thread (clients, the runtime itself). */
  publish(source: { name: string; taskId: string | null; delegationId?: string | null }, event: Event): void {
    this.dispatcher.publish({ name: source.name, taskId: source.taskId, delegationId: source.delegationId ?? null }, event);
  }

  setResponder(has: boolean): void {
    this.help.hasResponder = has;
    if (!has) this.help.failAll(undefined, 'NO_RESPONDER', 'the last client able to answer went away');
  }

  /** Routes a client's answer to the waiting actor; false if nobody waits for that requestId. */
  respondUserHelp(response: HelpResponseInput): boolean {
    return this.help.answer(response);
  }

  pauseTask(taskId: string): boolean {
    return this.setPaused(taskId, true);
  }

  resumeTask(taskId: string): boolean {
    return this.setPaused(taskId, false);
  }

  /** Pauses or resumes single actors of a task (recovery A per actor): `match` is a full name, an agent name or a
   *  delegation call id. The task's other actors run on. Returns the names it reached (empty = none matched). */
  pauseActors(taskId: string, match: string, paused: boolean): string[] {
    const hit = [...this.host.live].filter((a) => a.spec.taskId === taskId && (a.name === match || a.name.split(':').includes(match)));
    for (const a of hit) {
      a.setPaused(paused);
      // its parent keeps a backstop timer for it: that one freezes too
      this.spawnedBy.get(childKey(taskId, a.name))?.send({ type: 'child_pause', name: a.name, paused });
    }
    return hit.map((a) => a.name);
  }

  /** Spares (booting or ready) in the default pool: tests and diagnostics. */
  spareCount(): number {
    return this.host.spareCount();
  }

  /** Names of actors whose worker is still alive (started or starting): tests and diagnostics. */
  liveActors(): string[] { return [...this.host.live].map((h) => h.name); }

  /** Actors whose stop() hook failed (durability errors, e.g. the store's final flush): the client reports them. */
  stopFailures(): { actor: string; error: SerializedError }[] { return [...this.stopErrors]; }

  snapshot(): TreeNode { return this.root.snapshot(); }

  /** Stops everything in reverse order; resolves to the names still running after timeoutMs. */
  async drain(timeoutMs: number): Promise<string[]> {
    this.help.failAll(undefined, 'SHUTTING_DOWN', 'runtime draining');
    const names = await this.root.drain(timeoutMs);
    const bg = await this.tasks.drain(Math.max(0, 50));
    return [...names, ...bg];
  }

  async shutdown(timeoutMs = DEFAULT_SHUTDOWN_MS): Promise<string[]> {
    const left = await this.drain(timeoutMs);
    await this.host.close();
    this.hub?.close();
    await Promise.all(this.pools.splice(0).map((p) => p.close()));
    await this.dispatcher.close();
    return left;
  }

  // ---- wiring ----

  /** signal: a cancel that lands while the worker is still starting ends that start at once. */
  private actorChild(start: ActorStart, restart: RestartType, shutdownMs: number, signal?: AbortSignal): ChildSpec {
    return {
      id: start.name,
      kind: 'actor',
      restart,
      shutdownMs,
      start: async () => {
        const paused = start.taskId !== null && this.taskMap.get(start.taskId)?.pause.paused === true;
        const h = await this.host.start({ ...start, paused }, signal);
        const now = start.taskId !== null && this.taskMap.get(start.taskId)?.pause.paused === true;
        if (now !== paused) h.setPaused(now);
        if (h.served) {
          this.broker.register(h);
        }
        return h;
      },
    };
  }

  private setPaused(taskId: string, paused: boolean): boolean {
    const gate = this.taskMap.get(taskId)?.pause ?? this.reserved.get(taskId);
    if (!gate) return false;
    const changed = paused ? gate.pause() : gate.resume();
    if (!changed) return false;
    for (const a of this.host.live) if (a.spec.taskId === taskId) a.setPaused(paused);
    this.dispatcher.publish({ name: 'runtime', taskId, delegationId: null }, { type: paused ? 'task_paused' : 'task_resumed' });
    return true;
  }

  private forgetTask(taskId: string): void {
    if (!this.taskMap.delete(taskId)) return;
    this.help.failAll(taskId, 'CANCELLED', `task ${taskId} ended`);
    this.dispatcher.warnDropped(taskId);
  }

  private onPublish(a: ActorHandle, events: unknown[], dropped: Record<string, number>): void {
    const source = { name: a.name, taskId: a.spec.taskId, delegationId: a.spec.delegationId };
    let credits = 0;
    const ts = this.clock.now(); // one stamp per batch: the batch arrived at one instant
    const invalid: Record<string, number> = { ...dropped };
    for (const raw of events) {
      const type = (raw as { type?: unknown } | null)?.type;
      if (!CRITICAL_EVENT_TYPES.has(type as Event['type'])) credits++;
      const ev = EventSchema.safeParse(raw);
      if (ev.success) this.dispatcher.publish(source, ev.data, ts);
      else invalid[`invalid:${String(type)}`] = (invalid[`invalid:${String(type)}`] ?? 0) + 1;
    }
    if (Object.keys(invalid).length > 0) this.dispatcher.recordSourceDrops(source, invalid);
    a.credit(credits);
  }

  private async onSpawnRequest(a: ActorHandle, requestId: string, spec: unknown): Promise<unknown> {
    if (a.spec.taskId === null) throw runtimeError('NOT_FOUND', `${a.name} is not part of a task and cannot spawn`);
    const ctl = new AbortController();
    this.spawnCancels.set(requestId, ctl);
    const key = childKey(a.spec.taskId, String((spec as { name?: unknown } | null)?.name));
    this.spawnedBy.set(key, a);
    try {
      return await this.spawn(a.spec.taskId, spec as SpawnSpec, ctl.signal);
    } finally {
      this.spawnCancels.delete(requestId);
      if (this.spawnedBy.get(key) === a) this.spawnedBy.delete(key);
    }
  }

  /** A port to a served actor (the CPU pool is served from this thread). */
  private async brokerPort(target: string): Promise<MessagePort> {
    return target === CPU_SERVICE ? this.cpuHub().port() : this.broker.port(target);
  }
}
