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

/** The entry a pool thread loads first when it runs below the main thread (cpu-thread.ts). */
const CPU_THREAD = 'src/runtime/cpu-thread.js';

/** A pool over compiled job modules (paths under dist/; `module` = the default one, may be omitted when
 *  every task names its own). piscina loads on the first job: a client that never runs one does not pay for it.
 *  nice > 0 (a screen draws: `RuntimeOptions.workerNice`): each pool thread runs that far below the main thread. */
export function createCpuPool(module: string | null, opts: { maxThreads?: number; idleTimeoutMs?: number; nice?: number } = {}): CpuPool {
  const own = module === null ? null : distFile(module);
  const below = (opts.nice ?? 0) > 0;
  // below: every thread first loads cpu-thread.js (it lowers itself) and each job names its module
  const filename = below ? distFile(CPU_THREAD) : own;
  let pool: Promise<Piscina> | undefined;
  const get = (): Promise<Piscina> =>
    (pool ??= import('piscina').then(
      ({ Piscina: P }) => new P({ filename, maxThreads: opts.maxThreads ?? 2, minThreads: 0, idleTimeout: opts.idleTimeoutMs ?? 30_000, ...(below ? { workerData: { nice: opts.nice } } : {}) }),
    ));
  const jobFile = (m: string | undefined): string | null => (m !== undefined ? distFile(m) : below ? own : null);
  return {
    run: async <I, O>(input: I, o: CpuRunOptions = {}) => {
      const file = jobFile(o.module);
      return (await (await get()).run(input, { name: o.name ?? 'default', signal: o.signal ?? null, ...(file !== null ? { filename: file } : {}) })) as O;
    },
    close: async () => {
      if (pool) await (await pool).destroy();
    },
  };
}
