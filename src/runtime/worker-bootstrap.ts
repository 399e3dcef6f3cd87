// Inside every actor worker: preload while idle (a warm spare), say `ready`, then run the actor the start message
// names. The generic worker (actor-worker.ts) imports modules from dist/; a thread bundle brings its own.
import { parentPort, workerData } from 'node:worker_threads';
import { WorkerActor, type ActorModuleLoader } from './worker-context.js';
import { ToWorkerSchema } from './protocol/index.js';
import { trace } from './trace.js';
import { lowerThisThread } from './thread-priority.js';

export interface WorkerModules extends ActorModuleLoader {
  /** Imports a preload spec (a package name or a module path under dist/). */
  preload(spec: string): Promise<unknown>;
}

/** Starts the worker (synchronous for its caller: a thread bundle is CommonJS, which has no top-level await).
 *  A failed bootstrap is an unhandled rejection: the worker ends with an 'error' its spare boot reports. */
export function startWorker(modules: WorkerModules): void {
  void bootstrapWorker(modules);
}

async function bootstrapWorker(modules: WorkerModules): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('an actor worker must run inside a worker thread');
  const data = (workerData ?? {}) as { preload?: unknown; nice?: unknown };
  // a UI draws in this process: this thread runs below it (a thread bundle's entry has done so already)
  if (typeof data.nice === 'number') lowerThisThread(data.nice);
  const preload = Array.isArray(data.preload) ? data.preload.filter((x): x is string => typeof x === 'string') : [];
  const actor = new WorkerActor(port, modules);
  // Messages that arrive while preloading are queued, never lost.
  const early: unknown[] = [];
  let ready = false;
  port.on('message', (m: unknown) => (ready ? actor.handle(m) : early.push(m)));
  const t0 = performance.now();
  const failed: string[] = [];
  for (const spec of preload) {
    try {
      await modules.preload(spec);
    } catch {
      failed.push(spec);
    }
  }
  // Exercise the control-message schema once so its first real use (the start message) is already compiled.
  ToWorkerSchema.safeParse({ type: 'pause', paused: false });
  ToWorkerSchema.safeParse({ type: 'start', name: 'x', module: 'x.js', taskId: null, delegationId: null, input: null, shared: {}, paused: false, creditWindow: 1, rpcTimeoutMs: 1 });
  trace(`worker ready (preload ${preload.join(', ') || 'none'}: ${(performance.now() - t0).toFixed(1)} ms)`);
  port.postMessage({ type: 'ready', preloadMs: performance.now() - t0, failed });
  ready = true;
  for (const m of early.splice(0)) actor.handle(m);
}

/** A thread bundle's modules: its actor modules and the packages it carries, nothing else (another spec would load
 *  a second copy of the runtime into this thread: its process-group table and pause gate must exist once). */
export function builtinModules(actors: Readonly<Record<string, { default?: unknown }>>, packages: Readonly<Record<string, () => Promise<unknown>>>, onEnd?: () => void): WorkerModules {
  const known = (spec: string): string => `${spec} is not in this thread bundle (it serves ${[...Object.keys(actors), ...Object.keys(packages)].join(', ')})`;
  return {
    load: async (spec) => actors[spec] ?? Promise.reject(Object.assign(new Error(known(spec)), { code: 'INVALID_SPEC' })),
    preload: async (spec) => (actors[spec] !== undefined ? undefined : (packages[spec] ?? (() => Promise.reject(new Error(known(spec)))))()),
    ...(onEnd ? { onEnd } : {}),
  };
}
