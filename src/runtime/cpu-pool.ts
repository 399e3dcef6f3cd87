// Stateless CPU jobs off the main thread (token counting, fingerprints, diffs): piscina, never for actors.
import { Piscina } from 'piscina';
import { distFile } from './paths.js';

export interface CpuPool {
  run<I, O>(input: I, opts?: { name?: string; signal?: AbortSignal }): Promise<O>;
  close(): Promise<void>;
}

/** A pool over one compiled job module (path under dist/, default export = the job function). */
export function createCpuPool(module: string, opts: { maxThreads?: number; idleTimeoutMs?: number } = {}): CpuPool {
  const pool = new Piscina({ filename: distFile(module), maxThreads: opts.maxThreads ?? 2, minThreads: 0, idleTimeout: opts.idleTimeoutMs ?? 30_000 });
  return {
    run: async <I, O>(input: I, o: { name?: string; signal?: AbortSignal } = {}) =>
      (await pool.run(input, { name: o.name ?? 'default', signal: o.signal ?? null })) as O,
    close: () => pool.destroy(),
  };
}
