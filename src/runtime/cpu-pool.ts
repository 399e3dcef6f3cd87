// Stateless CPU jobs off the main thread (token counting, fingerprints, diffs): piscina, never for actors.
import type { Piscina } from 'piscina';
import { distFile } from './dist-paths.js';

export interface CpuRunOptions {
  /** Named export of the job module (default: `default`). */
  name?: string;
  /** Job module under dist/ for this task (default: the pool's module). */
  module?: string;
  signal?: AbortSignal;
}

export interface CpuPool {
  run<I, O>(input: I, opts?: CpuRunOptions): Promise<O>;
  close(): Promise<void>;
}

/** A pool over compiled job modules (paths under dist/; `module` = the default one, may be omitted when
 *  every task names its own). piscina loads on the first job: a client that never runs one does not pay for it. */
export function createCpuPool(module: string | null, opts: { maxThreads?: number; idleTimeoutMs?: number } = {}): CpuPool {
  const filename = module === null ? null : distFile(module);
  let pool: Promise<Piscina> | undefined;
  const get = (): Promise<Piscina> =>
    (pool ??= import('piscina').then(
      ({ Piscina: P }) => new P({ filename, maxThreads: opts.maxThreads ?? 2, minThreads: 0, idleTimeout: opts.idleTimeoutMs ?? 30_000 }),
    ));
  return {
    run: async <I, O>(input: I, o: CpuRunOptions = {}) =>
      (await (await get()).run(input, {
        name: o.name ?? 'default',
        signal: o.signal ?? null,
        ...(o.module !== undefined ? { filename: distFile(o.module) } : {}),
      })) as O,
    close: async () => {
      if (pool) await (await pool).destroy();
    },
  };
}
