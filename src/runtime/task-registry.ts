// Tasks by id: each task's supervisor (`task:<id>`) and pause gate, gates reserved before a start, pause by task.
import type { SpawnSpec } from './actor.js';
import type { ActorHandle } from './actor-host.js';
import type { Strategy } from './child-spec.js';
import type { Dispatcher } from './dispatcher.js';
import type { HelpDesk } from './help-desk.js';
import { PauseController } from './pause.js';
import { Supervisor } from './supervisor.js';
import { DEFAULT_SHUTDOWN_MS, type TreeCommon } from './runtime-tree.js';

export interface TaskHandle {
  readonly id: string;
  readonly supervisor: Supervisor;
  readonly pause: PauseController;
  spawn<I, O>(spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O>;
}

/** Defaults for the task supervisors (OTP default intensity 1 in 5000 ms). */
export interface SupervisionDefaults {
  intensity?: number;
  periodMs?: number;
  backoff?: { initialMs: number; maxMs: number; jitter: number };
}

export interface TaskRegistryDeps {
  /** The tree's `tasks` supervisor (a getter: root replaces it on a restart). */
  tasks(): Supervisor;
  common: TreeCommon;
  supervision?: SupervisionDefaults | undefined;
  dispatcher: Dispatcher;
  help: HelpDesk;
  /** Workers alive now: a pause reaches each of the task's actors. */
  live(): Iterable<ActorHandle>;
  spawn<I, O>(taskId: string, spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O>;
}

/** Ended tasks whose event replay stays in memory (a client attaching late still gets their events); older ones are
 *  forgotten, so a long-running `yagent serve` does not keep every finished task's replay (~0.5 MB each). */
export const ENDED_REPLAYS_KEPT = 16;

export class TaskRegistry {
  /** Ended task ids, oldest first, whose replay the dispatcher still holds. */
  private readonly ended: string[] = [];
  private readonly map = new Map<string, TaskHandle>();
  /** Pause gates of tasks announced but not started yet: a pause given in that window is kept, not lost. */
  private readonly reserved = new Map<string, PauseController>();

  constructor(private readonly deps: TaskRegistryDeps) {}

  get(taskId: string): TaskHandle | undefined {
    return this.map.get(taskId);
  }

  /** True when the task exists and is paused now (an actor starting into it starts paused). */
  paused(taskId: string | null): boolean {
    return taskId !== null && this.map.get(taskId)?.pause.paused === true;
  }

  /** Creates the task's supervisor (task:<id>) with its pause gate; children are spawned into it. */
  async start(taskId: string, opts: { strategy?: Strategy } = {}): Promise<TaskHandle> {
    const existing = this.map.get(taskId);
    if (existing) return existing;
    const { dispatcher } = this.deps;
    const sup = await Supervisor.start({
      name: `task:${taskId}`,
      kind: 'task',
      strategy: opts.strategy ?? 'one_for_one',
      ...this.deps.supervision,
      ...this.deps.common,
      describe: () => dispatcher.scopeStats(taskId),
    });
    const pause = this.reserved.get(taskId) ?? new PauseController();
    this.reserved.delete(taskId);
    const handle: TaskHandle = { id: taskId, supervisor: sup, pause, spawn: (spec, signal) => this.deps.spawn(taskId, spec, signal) };
    await this.deps.tasks().startChild({ id: `task:${taskId}`, kind: 'task', restart: 'temporary', shutdownMs: DEFAULT_SHUTDOWN_MS, start: () => Promise.resolve(sup) }, () => this.forget(taskId));
    this.map.set(taskId, handle);
    return handle;
  }

  /** Announces a task about to start (a client already holds its id): pause/resume reach it from now on. */
  reserve(taskId: string): void {
    if (!this.map.has(taskId) && !this.reserved.has(taskId)) this.reserved.set(taskId, new PauseController());
  }

  /** Stops a task's tree, publishes its drop report, and forgets it. */
  async end(taskId: string): Promise<void> {
    this.reserved.delete(taskId);
    if (!this.map.has(taskId)) return;
    await this.deps.tasks().terminateChild(`task:${taskId}`);
    this.forget(taskId);
  }

  /** Every task is gone (the `tasks` supervisor restarted): each is forgotten as if it ended. */
  forgetAll(): void {
    for (const id of [...this.map.keys()]) this.forget(id);
  }

  /** Pauses or resumes a task (started or reserved) and every live actor of it; false when nothing changed. */
  setPaused(taskId: string, paused: boolean): boolean {
    const gate = this.map.get(taskId)?.pause ?? this.reserved.get(taskId);
    if (!gate) return false;
    const changed = paused ? gate.pause() : gate.resume();
    if (!changed) return false;
    for (const a of this.deps.live()) if (a.spec.taskId === taskId) a.setPaused(paused);
    this.deps.dispatcher.publish({ name: 'runtime', taskId, delegationId: null }, { type: paused ? 'task_paused' : 'task_resumed' });
    return true;
  }

  private forget(taskId: string): void {
    if (!this.map.delete(taskId)) return;
    this.deps.help.failAll(taskId, 'CANCELLED', `task ${taskId} ended`);
    this.deps.dispatcher.warnDropped(taskId);
    this.ended.push(taskId);
    while (this.ended.length > ENDED_REPLAYS_KEPT) this.deps.dispatcher.forget(this.ended.shift()!);
  }
}
