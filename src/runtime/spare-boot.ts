// Booting actor workers (spares): shared by ActorHost and prestart(), which boots one before the runtime loads.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceLimits } from './actor.js';
import { ACTOR_WORKER, THREAD_WORKER, distFile, distRoot } from './dist-paths.js';

/** A thread's whole start-up graph as one CommonJS bundle (scripts/bundle-entries.mjs), run by thread-worker.ts
 *  through the V8 code cache. It serves only the actor modules and packages it carries. */
export interface ThreadBundle {
  /** The compiled entry it is bundled from, and the bundle, both under dist/ (`src/…/x-thread.js`, `….cjs`). */
  entry: string;
  bundle: string;
  /** Actor modules (SpawnSpec.module) built in. */
  modules: readonly string[];
  /** Preload package names it carries. */
  packages: readonly string[];
  /** Bare specifiers its `require` loads as other code-cached bundles (paths under dist/), e.g. a vendored SDK. */
  requires?: Readonly<Record<string, string>>;
}

/** A worker that is booting (or booted): `ready` resolves once its preload is imported. */
export interface Booting {
  worker: Worker;
  ready: Promise<void>;
  key: string;
  /** A thread bundle's worker runs only these modules; undefined: any module under dist/. */
  serves?: readonly string[];
}

/** Spares are interchangeable only with the same resource limits, the same preload and the same priority (`nice`:
 *  how far below the main thread the worker runs, thread-priority.ts; 0 = at its priority). */
export function startKey(l: ResourceLimits | undefined, preload: readonly string[], nice = 0): string {
  return JSON.stringify([l?.maxOldGenerationSizeMb ?? 0, l?.maxYoungGenerationSizeMb ?? 0, l?.stackSizeMb ?? 0, preload, nice]);
}

/** The bundle that serves this preload: its first entry is one of the bundle's actor modules and the rest are
 *  packages it carries (a plain `tsc` build has no bundle: the generic worker imports from dist/). */
export function threadFor(preload: readonly string[], threads: readonly ThreadBundle[]): ThreadBundle | undefined {
  const [first, ...rest] = preload;
  if (first === undefined) return undefined;
  return threads.find((t) => t.modules.includes(first) && rest.every((p) => t.packages.includes(p)) && existsSync(join(distRoot(), t.bundle)));
}

/** nice > 0: the worker lowers its own thread's priority that much below the main thread's as it boots (the TUI's
 *  workers: thread-priority.ts). */
export function bootWorker(limits: ResourceLimits | undefined, preload: readonly string[], threads: readonly ThreadBundle[] = [], nice = 0): Booting {
  const thread = threadFor(preload, threads);
  const root = distRoot();
  const requires = Object.fromEntries(Object.entries(thread?.requires ?? {}).map(([k, v]) => [k, join(root, v)]));
  const below = nice > 0 ? { nice } : {};
  // the bundle's path is not checked again (distFile): threadFor has just seen it exist
  const worker = thread
    ? new Worker(distFile(THREAD_WORKER), { workerData: { bundle: join(root, thread.bundle), packages: requires, preload: [...preload], ...below }, resourceLimits: limits ?? {} })
    : new Worker(distFile(ACTOR_WORKER), { workerData: { preload: [...preload], ...below }, resourceLimits: limits ?? {} });
  const ready = new Promise<void>((resolve, reject) => {
    // Only the boot signal is read here (by hand: this module stays free of zod so it loads in a blink).
    const onMsg = (m: unknown): void => {
      if ((m as { type?: unknown } | null)?.type !== 'ready') return;
      worker.off('message', onMsg);
      resolve();
    };
    worker.on('message', onMsg);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`spare exited with code ${code}`)));
  });
  ready.catch(() => undefined); // marks it handled: the start that takes this spare awaits it and sees the failure
  return { worker, ready, key: startKey(limits, preload, nice), ...(thread ? { serves: thread.modules } : {}) };
}

const early: Booting[] = [];

/** Boots spares before the runtime module graph is even loaded (a CLI's first lines); the next
 *  ActorHost whose pool has the same preload and limits adopts them instead of booting its own. */
export function prestart(opts: { preload: readonly string[]; count?: number; resourceLimits?: ResourceLimits; threads?: readonly ThreadBundle[]; nice?: number }): Booting[] {
  const booted: Booting[] = [];
  for (let i = 0; i < (opts.count ?? 1); i++) booted.push(bootWorker(opts.resourceLimits, opts.preload, opts.threads, opts.nice));
  early.push(...booted);
  return booted;
}

/** Takes a prestarted spare with this key, if any. */
export function adoptPrestarted(key: string): Booting | undefined {
  const i = early.findIndex((b) => b.key === key);
  return i >= 0 ? early.splice(i, 1)[0] : undefined;
}

/** Prestarted spares not adopted yet (tests and diagnostics). */
export function prestartedCount(): number {
  return early.length;
}

/** Terminates prestarted spares nobody adopted. */
export async function releasePrestarted(): Promise<void> {
  await Promise.all(early.splice(0).map((b) => b.worker.terminate()));
}
