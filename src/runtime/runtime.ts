// The runtime facade: the only way to start workers, tasks and background promises in yagent. It composes the
// roles (tree, task registry, spawn path, event ingress, service broker, CPU pools) and adds no logic of its own.
import type { MessagePort } from 'node:worker_threads';
import type { Clock, Remote, ResourceLimits, RestartType, SpawnSpec } from './actor.js';
import { ActorHost } from './actor-host.js';
import type { ThreadBundle } from './spare-boot.js';
import type { TreeNode } from './child.js';
import type { Strategy } from './child-spec.js';
import { realClock } from './clock.js';
import type { CpuPool } from './cpu-pool.js';
import { CpuPools } from './cpu-pools.js';
import { CPU_SERVICE, type CpuService } from './cpu-service.js';
import { Dispatcher, type DispatcherOptions } from './dispatcher.js';
import { EventIngress } from './event-ingress.js';
import { HelpDesk, type HelpResponseInput } from './help-desk.js';
import { RpcClient } from './rpc.js';
import { DEFAULT_SHUTDOWN_MS, RuntimeTree, type TreeCommon } from './runtime-tree.js';
import { ServiceBroker } from './service-broker.js';
import { SpawnPath } from './spawn-path.js';
import type { Supervisor, SupervisorEvent } from './supervisor.js';
import { TaskRegistry, type SupervisionDefaults, type TaskHandle } from './task-registry.js';
import { NamedTasks } from './tasks.js';
import { guardOrphans } from './watchdog.js';
import type { Event, SerializedError } from './protocol/index.js';

export { DEFAULT_SHUTDOWN_MS } from './runtime-tree.js';
export type { TaskHandle } from './task-registry.js';

export interface RuntimeOptions {
  /** Modules every actor worker imports while it waits as a spare (default zod, openai, @anthropic-ai/sdk);
   *  package names or module paths under dist/ (`src/….js`, e.g. the agent actor itself). */
  preload?: string[];
  /** Spares booted at start (in the background: start() does not wait for them; warm() does). */
  spares?: number;
  /** True: taking a spare does not boot its replacement until the next warm() (a latency-critical first start). */
  deferRefill?: boolean;
  creditWindow?: number;
  rpcTimeoutMs?: number;
  /** How long a connect waits for a served actor that is (re)starting. */
  connectWaitMs?: number;
  shared?: Record<string, SharedArrayBuffer>;
  resourceLimits?: ResourceLimits;
  /** Thread bundles (code-cached CommonJS builds of an actor's thread); a spawn whose preload one serves boots it. */
  threads?: readonly ThreadBundle[];
  /** A UI draws in this process (the TUI): every actor worker (agent, store, MCP) and CPU pool thread lowers its own
   *  thread's priority this far below the main thread's as it boots (Linux nice, thread-priority.ts). Unset
   *  (headless): unchanged. */
  workerNice?: number;
  /** False for headless runs: requestUserHelp rejects with NO_RESPONDER. */
  hasResponder?: boolean;
  dispatcher?: DispatcherOptions;
  /** Defaults for the task supervisors (OTP default intensity 1 in 5000 ms). */
  supervision?: SupervisionDefaults;
  clock?: Clock;
  random?: () => number;
  onSupervisorEvent?: (e: SupervisorEvent) => void;
  /** The CLI: a watchdog process that ends this process's groups when it dies by kill -9 / OOM, and a sweep of the
   *  groups an earlier yagent left behind (watchdog.ts). */
  guardOrphans?: boolean;
  /** When that sweep starts (default: at once); the CLI's: once its first model call is under way. */
  sweepOrphansAfter?: Promise<unknown>;
  /** When the watchdog process starts (default: at once); the CLI's -p: once its first task's start is posted. */
  watchdogAfter?: Promise<unknown>;
}

export interface ServiceSpec<I = unknown> {
  name: string;
  module: string;
  input?: I;
  restart?: RestartType;
  shutdownMs?: number;
  resourceLimits?: ResourceLimits;
  /** Its own preload (e.g. [] for a service that needs no SDK): a fresh worker booted at once, not a spare. */
  preload?: string[];
  /** Its own restart budget: it runs under a supervisor of its own (temporary under `services`), so a crash loop
   *  of it ends with it down instead of escalating and restarting its siblings (the store). */
  isolate?: { intensity: number; periodMs: number };
}

export class Runtime {
  readonly dispatcher: Dispatcher;
  /** Background promises of the main thread (clients, servers): named and drainable. */
  readonly tasks = new NamedTasks();
  readonly help: HelpDesk;
  private host!: ActorHost;
  private tree!: RuntimeTree;
  private readonly registry: TaskRegistry;
  private readonly spawner: SpawnPath;
  private readonly ingress: EventIngress;
  private readonly broker: ServiceBroker;
  private readonly cpuPools: CpuPools;
  private readonly clock: Clock;
  private readonly common: TreeCommon;
  private readonly stopErrors: { actor: string; error: SerializedError }[] = [];

  private constructor(private readonly opts: RuntimeOptions) {
    this.clock = opts.clock ?? realClock;
    this.cpuPools = new CpuPools(opts.workerNice);
    this.common = { clock: opts.clock, random: opts.random, onEvent: opts.onSupervisorEvent };
    this.dispatcher = new Dispatcher({ clock: this.clock, ...opts.dispatcher });
    this.help = new HelpDesk(opts.hasResponder ?? true, (source, event) => this.dispatcher.publish(source, event));
    this.broker = new ServiceBroker(this.clock, opts.connectWaitMs ?? 5000);
    this.ingress = new EventIngress(this.dispatcher, this.clock);
    this.spawner = new SpawnPath({
      host: () => this.host,
      tasks: () => this.registry,
      broker: this.broker,
      background: this.tasks,
      actorGone: (taskId, name) => this.help.actorGone(taskId, name),
    });
    this.registry = new TaskRegistry({
      tasks: () => this.tree.tasks,
      common: this.common,
      supervision: opts.supervision,
      dispatcher: this.dispatcher,
      help: this.help,
      live: () => this.host.live,
      spawn: (taskId, spec, signal) => this.spawner.spawn(taskId, spec, signal),
    });
  }

  static async start(opts: RuntimeOptions = {}): Promise<Runtime> {
    const rt = new Runtime(opts);
    if (opts.guardOrphans === true) guardOrphans(rt.tasks, opts.sweepOrphansAfter, opts.watchdogAfter);
    rt.host = new ActorHost({
      preload: opts.preload,
      spares: opts.spares,
      deferRefill: opts.deferRefill,
      creditWindow: opts.creditWindow,
      rpcTimeoutMs: opts.rpcTimeoutMs,
      shared: opts.shared,
      resourceLimits: opts.resourceLimits,
      ...(opts.threads ? { threads: opts.threads } : {}),
      ...(opts.workerNice !== undefined ? { workerNice: opts.workerNice } : {}),
      requests: {
        publish: (a, events, dropped) => rt.ingress.events(a, events, dropped),
        settle: (a) => rt.ingress.settle(a),
        connect: (_a, target) => rt.brokerPort(target),
        spawn: (a, requestId, spec) => rt.spawner.request(a, requestId, spec),
        spawnCancel: (_a, requestId) => rt.spawner.cancel(requestId),
        help: (a, requestId, request) => rt.help.ask(requestId, a.source, request),
        helpCancel: (_a, requestId) => rt.help.cancel(requestId),
        stopFailed: (a, error) => void rt.stopErrors.push({ actor: a.name, error }),
      },
    });
    rt.tree = await RuntimeTree.start(rt.common, () => rt.registry.forgetAll());
    // Spares boot in the background: the first start takes one even while it is still booting.
    rt.host.prime();
    return rt;
  }

  /** A piscina pool for stateless CPU jobs (module under dist/); closed by shutdown(). */
  cpuPool(module: string | null, opts?: { maxThreads?: number; idleTimeoutMs?: number }): CpuPool {
    return this.cpuPools.pool(module, opts);
  }

  /** The process's one pool for stateless jobs (`*-job.js` modules), also served to workers as CPU_SERVICE. */
  get cpu(): CpuService {
    return this.cpuPools.service;
  }

  /** Resolves when the warm spare pool is full again (benchmarks, tests, latency-sensitive starts);
   *  releases a deferRefill hold. preload: what spares booted from now on import instead. */
  warm(opts: { preload?: string[] } = {}): Promise<void> {
    return this.host.warm(opts.preload);
  }

  get supervisor(): Supervisor {
    return this.tree.root;
  }

  /** Starts a long-lived served actor (e.g. the store) under the services supervisor. */
  async startService<I>(spec: ServiceSpec<I>): Promise<void> {
    const child = this.spawner.actorChild(
      { name: spec.name, module: spec.module, input: spec.input, taskId: null, delegationId: null, resourceLimits: spec.resourceLimits, preload: spec.preload },
      spec.restart ?? 'permanent',
      spec.shutdownMs ?? DEFAULT_SHUTDOWN_MS,
    );
    await this.tree.addService(spec.name, child, spec.isolate);
  }

  /** Starts a service at its first connect instead of now: `start` (e.g. a startService) runs once, when an actor or
   *  this thread first connects to `name` and finds it not served. */
  onDemand(name: string, start: () => void): void {
    this.broker.onDemand(name, start);
  }

  /** Creates the task's supervisor (task:<id>) with its pause gate; children are spawned into it. */
  startTask(taskId: string, opts: { strategy?: Strategy } = {}): Promise<TaskHandle> {
    return this.registry.start(taskId, opts);
  }

  /** Announces a task about to start (a client already holds its id): pause/resume reach it from now on. */
  reserveTask(taskId: string): void {
    this.registry.reserve(taskId);
  }

  task(taskId: string): TaskHandle | undefined {
    return this.registry.get(taskId);
  }

  /** Stops a task's tree, publishes its drop report, and forgets it. */
  endTask(taskId: string): Promise<void> {
    return this.registry.end(taskId);
  }

  /** Starts an actor under a task's supervisor; resolves with its run() result. */
  spawn<I, O>(taskId: string, spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O> {
    return this.spawner.spawn(taskId, spec, signal);
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
    return this.registry.setPaused(taskId, true);
  }

  resumeTask(taskId: string): boolean {
    return this.registry.setPaused(taskId, false);
  }

  /** Pauses or resumes single actors of a task (recovery A per actor): `match` is a full name, an agent name or a
   *  delegation call id. The task's other actors run on. Returns the names it reached (empty = none matched). */
  pauseActors(taskId: string, match: string, paused: boolean): string[] {
    const hit = [...this.host.live].filter((a) => a.spec.taskId === taskId && (a.name === match || a.name.split(':').includes(match)));
    for (const a of hit) {
      a.setOwnPaused(paused, this.registry.paused(taskId));
      // every client's tree and sidebar say so (the snapshot carries it too: a client that opens later sees it)
      this.dispatcher.publish({ name: 'runtime', taskId, delegationId: a.spec.delegationId ?? null }, { type: 'actor_paused', actor: a.name, paused });
      // its parent keeps a backstop timer for it: that one freezes too
      this.spawner.parentOf(taskId, a.name)?.send({ type: 'child_pause', name: a.name, paused });
    }
    return hit.map((a) => a.name);
  }

  /** Spares (booting or ready) in the default pool: tests and diagnostics. */
  spareCount(): number {
    return this.host.spareCount();
  }

  /** Names of actors whose worker is still alive (started or starting): tests and diagnostics. */
  liveActors(): string[] { return [...this.host.live].map((h) => h.name); }

  /** Ends the workers of the live actors called `name` at once, no stop hook (as a throw outside run() or an OOM
   *  would); returns how many. Only the scripted model's `crash_worker` fault calls it (CLI crash tests). */
  crashActors(name: string): number {
    const hit = [...this.host.live].filter((h) => h.name === name);
    for (const h of hit) void h.worker.terminate();
    return hit.length;
  }

  /** Actors whose stop() hook failed (durability errors, e.g. the store's final flush): the client reports them. */
  stopFailures(): { actor: string; error: SerializedError }[] { return [...this.stopErrors]; }

  snapshot(): TreeNode { return this.tree.root.snapshot(); }

  /** Stops everything in reverse order; resolves to the names still running after timeoutMs. */
  async drain(timeoutMs: number): Promise<string[]> {
    this.help.failAll(undefined, 'SHUTTING_DOWN', 'runtime draining');
    const names = await this.tree.root.drain(timeoutMs);
    const bg = await this.tasks.drain(Math.max(0, 50));
    return [...names, ...bg];
  }

  async shutdown(timeoutMs = DEFAULT_SHUTDOWN_MS): Promise<string[]> {
    const left = await this.drain(timeoutMs);
    await this.host.close();
    await this.cpuPools.close();
    await this.dispatcher.close();
    return left;
  }

  /** A port to a served actor (the CPU pool is served from this thread). */
  private async brokerPort(target: string): Promise<MessagePort> {
    return target === CPU_SERVICE ? this.cpuPools.port() : this.broker.port(target);
  }
}
