// The runtime's supervision tree: root → `services` (start first, stop last) and `tasks`, rebuilt on a restart.
import type { ChildSpec } from './child.js';
import type { Clock } from './actor.js';
import { Supervisor, type SupervisorEvent } from './supervisor.js';

/** Shutdown grace of an actor or supervisor that names none. */
export const DEFAULT_SHUTDOWN_MS = 5000;

/** What every supervisor of the tree shares (the runtime's injected clock and randomness, its event hook). */
export interface TreeCommon {
  clock?: Clock | undefined;
  random?: (() => number) | undefined;
  onEvent?: ((e: SupervisorEvent) => void) | undefined;
}

export class RuntimeTree {
  root!: Supervisor;
  /** Replaced when root restarts it: read it, never keep it. */
  services!: Supervisor;
  /** Replaced when root restarts it: read it, never keep it. */
  tasks!: Supervisor;
  /** Every service seen so far: a restarted `services` comes back with all of them. */
  private readonly serviceSpecs: ChildSpec[] = [];

  private constructor(readonly common: TreeCommon) {}

  /** onTasksRestart: the old `tasks` supervisor is gone with every task under it (their handles must be forgotten). */
  static async start(common: TreeCommon, onTasksRestart: () => void): Promise<RuntimeTree> {
    const tree = new RuntimeTree(common);
    // Fresh supervisors on every (re)start; services come back with every service spec seen so far.
    const startServices = async (): Promise<Supervisor> =>
      (tree.services = await Supervisor.start({ name: 'services', ...common }, tree.serviceSpecs));
    const startTasks = async (): Promise<Supervisor> => {
      onTasksRestart();
      return (tree.tasks = await Supervisor.start({ name: 'tasks', intensity: 1000, ...common }));
    };
    // Services start first and stop last: tasks may need the store while they wind down.
    tree.root = await Supervisor.start({ name: 'root', kind: 'root', ...common }, [
      { id: 'services', kind: 'supervisor', restart: 'permanent', shutdownMs: DEFAULT_SHUTDOWN_MS, start: startServices },
      { id: 'tasks', kind: 'supervisor', restart: 'permanent', shutdownMs: DEFAULT_SHUTDOWN_MS, start: startTasks },
    ]);
    return tree;
  }

  /** Starts a service's child under `services`; with `isolate` under a supervisor of its own (`<name>-sup`,
   *  temporary), so its crash loop ends with it down instead of escalating and restarting its siblings. */
  async addService(name: string, child: ChildSpec, isolate?: { intensity: number; periodMs: number }): Promise<void> {
    const sup = `${name}-sup`;
    const top: ChildSpec = isolate === undefined ? child
      : { id: sup, kind: 'supervisor', restart: 'temporary', shutdownMs: child.shutdownMs, start: () => Supervisor.start({ name: sup, ...this.common, ...isolate }, [child]) };
    await this.services.startChild(top);
    this.serviceSpecs.push(top);
  }
}
