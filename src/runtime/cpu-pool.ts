// Stateless CPU jobs off the main thread (token counting, fingerprints, diffs): piscina, never for actors.
import type { Piscina } from 'piscina';
import { distFile } from './paths.js';

export interface CpuPool {
  run<I, O>(input: I, opts?: { name?: string; signal?: AbortSignal }): Promise<O>;
  close(): Promise<void>;
}

/** A pool over one compiled job module (path under dist/, default export = the job function).
 *  piscina loads on the first job: a client that never runs one does not pay for it at start-up. */
export function createCpuPool(module: string, opts: { maxThreads?: number; idleTimeoutMs?: number } = {}): CpuPool {
  const filename = distFile(module);
  let pool: Promise<Piscina> | undefined;
  const get = (): Promise<Piscina> =>
    (pool ??= import('piscina').then(
      ({ Piscina: P }) => new P({ filename, maxThreads: opts.maxThreads ?? 2, minThreads: 0, idleTimeout: opts.idleTimeoutMs ?? 30_000 }),
    ));
  return {
    run: async <I, O>(input: I, o: { name?: string; signal?: AbortSignal } = {}) =>
      (await (await get()).run(input, { name: o.name ?? 'default', signal: o.signal ?? null })) as O,
    close: async () => {
      if (pool) await (await pool).destroy();
    },
  };
}
