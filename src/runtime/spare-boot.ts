// Booting actor workers (spares): shared by ActorHost and prestart(), which boots one before the runtime loads.
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import type { ResourceLimits } from './actor.js';
import { ACTOR_WORKER, distFile } from './paths.js';

/** A worker that is booting (or booted): `ready` resolves once its preload is imported. */
export interface Booting {
  worker: Worker;
  ready: Promise<void>;
  key: string;
}

/** Spares are interchangeable only with the same resource limits and the same preload. */
export function startKey(l: ResourceLimits | undefined, preload: readonly string[]): string {
  return JSON.stringify([l?.maxOldGenerationSizeMb ?? 0, l?.maxYoungGenerationSizeMb ?? 0, l?.stackSizeMb ?? 0, preload]);
}

/** A module path under dist/ (what SpawnSpec.module names) becomes a file URL; package names pass through. */
export function resolvePreload(spec: string): string {
  return /^src\/.*\.js$/.test(spec) ? pathToFileURL(distFile(spec)).href : spec;
}

export function bootWorker(limits: ResourceLimits | undefined, preload: readonly string[]): Booting {
  const worker = new Worker(distFile(ACTOR_WORKER), {
    workerData: { preload: preload.map(resolvePreload) },
    resourceLimits: limits ?? {},
  });
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
  ready.catch(() => undefined);
  return { worker, ready, key: startKey(limits, preload) };
}

const early: Booting[] = [];

/** Boots spares before the runtime module graph is even loaded (a CLI's first lines); the next
 *  ActorHost whose pool has the same preload and limits adopts them instead of booting its own. */
export function prestart(opts: { preload: readonly string[]; count?: number; resourceLimits?: ResourceLimits }): void {
  for (let i = 0; i < (opts.count ?? 1); i++) early.push(bootWorker(opts.resourceLimits, opts.preload));
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
