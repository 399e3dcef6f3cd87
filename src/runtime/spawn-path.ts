// The spawn path: an actor as a child spec, a spawn into a task (spec checked, a cancel never lost, the exit as a
// value or an error), spawn requests from workers and which actor spawned which.
import type { RestartType, SpawnSpec } from './actor.js';
import type { ActorHandle, ActorHost, ActorStart } from './actor-host.js';
import type { ChildSpec, Exit } from './child.js';
import { RemoteError, SpawnSpecSchema } from './protocol/index.js';
import { runtimeError } from './rpc.js';
import { DEFAULT_SHUTDOWN_MS } from './runtime-tree.js';
import type { ServiceBroker } from './service-broker.js';
import type { TaskRegistry } from './task-registry.js';
import type { NamedTasks } from './tasks.js';

export interface SpawnDeps {
  host(): ActorHost;
  tasks(): TaskRegistry;
  broker: ServiceBroker;
  /** The main thread's named tasks: a cancel's terminate runs there. */
  background: NamedTasks;
  /** An actor's run ended: the help requests it left open are withdrawn. */
  actorGone(taskId: string, name: string): void;
}

const childKey = (taskId: string, name: string): string => `${taskId}\n${name}`;

export class SpawnPath {
  private readonly cancels = new Map<string, AbortController>();
  /** Which actor spawned a live child (task + child name): a pause of that child alone is forwarded to it. */
  private readonly spawnedBy = new Map<string, ActorHandle>();

  constructor(private readonly deps: SpawnDeps) {}

  /** The actor as a supervised child. signal: a cancel that lands while the worker is still starting ends that start at once. */
  actorChild(start: ActorStart, restart: RestartType, shutdownMs: number, signal?: AbortSignal): ChildSpec {
    return {
      id: start.name,
      kind: 'actor',
      restart,
      shutdownMs,
      start: async () => {
        const paused = this.deps.tasks().paused(start.taskId);
        const h = await this.deps.host().start({ ...start, paused }, signal);
        const now = this.deps.tasks().paused(start.taskId);
        if (now !== paused) h.setPaused(now);
        if (h.served) this.deps.broker.register(h);
        return h;
      },
    };
  }

  /** Starts an actor under a task's supervisor; resolves with its run() result. */
  async spawn<I, O>(taskId: string, spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O> {
    const checked = SpawnSpecSchema.safeParse(spec);
    if (!checked.success) throw runtimeError('INVALID_SPEC', `spawn ${String(spec?.name)}: ${checked.error.issues.map((i) => i.message).join('; ')}`);
    const task = this.deps.tasks().get(taskId);
    if (!task) throw runtimeError('NOT_FOUND', `no task ${taskId}`);
    if (signal?.aborted) throw runtimeError('CANCELLED', `spawn ${spec.name} cancelled before start`);
    let final!: (e: Exit) => void;
    const exit = new Promise<Exit>((r) => (final = r));
    const start: ActorStart = { name: spec.name, module: spec.module, input: spec.input, taskId, delegationId: spec.delegationId ?? null, resourceLimits: spec.resourceLimits };
    let cancelled = false;
    // Listening before the start: a cancel while the worker boots or loads its module must not be lost.
    const onAbort = (): void => {
      cancelled = true;
      void this.deps.background.go(`cancel:${spec.name}`, () => task.supervisor.terminateChild(spec.name, 'cancelled'));
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
    this.deps.actorGone(taskId, spec.name);
    if (e.normal && e.reason === 'normal') return e.value as O;
    // what a cancelled actor returned before it stopped (its usage) travels with the cancel: the caller decides
    if (cancelled) throw Object.assign(runtimeError('CANCELLED', `${spec.name} cancelled`), { result: e.value });
    const code = e.reason === 'out_of_memory' ? 'ACTOR_OOM' : e.normal ? 'ACTOR_EXITED' : 'ACTOR_CRASHED';
    throw new RemoteError({ name: 'ActorError', message: `${spec.name}: ${e.reason}`, code, cause: e.error });
  }

  /** A worker asks to spawn a child into its own task; its cancel arrives by request id. */
  async request(a: ActorHandle, requestId: string, spec: unknown): Promise<unknown> {
    if (a.spec.taskId === null) throw runtimeError('NOT_FOUND', `${a.name} is not part of a task and cannot spawn`);
    const ctl = new AbortController();
    this.cancels.set(requestId, ctl);
    const key = childKey(a.spec.taskId, String((spec as { name?: unknown } | null)?.name));
    this.spawnedBy.set(key, a);
    try {
      return await this.spawn(a.spec.taskId, spec as SpawnSpec, ctl.signal);
    } finally {
      this.cancels.delete(requestId);
      if (this.spawnedBy.get(key) === a) this.spawnedBy.delete(key);
    }
  }

  cancel(requestId: string): void {
    this.cancels.get(requestId)?.abort(runtimeError('CANCELLED', 'spawn cancelled by parent'));
  }

  /** The live actor that spawned `name` in the task (undefined for the task's first actor). */
  parentOf(taskId: string, name: string): ActorHandle | undefined {
    return this.spawnedBy.get(childKey(taskId, name));
  }
}
