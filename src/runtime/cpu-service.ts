// The process's one CPU pool, reachable from every worker actor: connect(CPU_SERVICE) brokers a port whose
// calls the main thread relays to piscina (one pool per process: a tokenizer's ranks are loaded once, not per agent).
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { CpuPool } from './cpu-pool.js';
import { runtimeError, serveRpc } from './rpc.js';

export const CPU_SERVICE = 'cpu';

/** A job: a named export of a compiled `*-job.js` module under dist/src (only job modules may be loaded). */
export interface CpuJob {
  module: string;
  name: string;
  /** Past this the job is stopped with its pool thread (piscina terminates a running task's worker): JOB_TIMEOUT. */
  timeoutMs?: number;
}

export interface CpuService {
  run(job: CpuJob, input: unknown): Promise<unknown>;
}

const JOB_MODULE = /^src\/(?:[a-z0-9_-]+\/)*[a-z0-9_-]+-job\.js$/;
const JOB_NAME = /^[A-Za-z_$][\w$]*$/;

/** The service as the main thread serves it: validates the job at the boundary, then runs it on the pool. */
export function cpuService(pool: CpuPool): CpuService {
  return {
    run: (job: CpuJob, input: unknown) => {
      const j = job as Partial<CpuJob> | null;
      const badTimeout = j?.timeoutMs !== undefined && !(typeof j.timeoutMs === 'number' && j.timeoutMs > 0 && Number.isFinite(j.timeoutMs));
      if (typeof j?.module !== 'string' || !JOB_MODULE.test(j.module) || typeof j.name !== 'string' || !JOB_NAME.test(j.name) || badTimeout) {
        return Promise.reject(runtimeError('BAD_JOB', `not a cpu job: ${JSON.stringify(job)}`));
      }
      if (j.timeoutMs === undefined) return pool.run(input, { module: j.module, name: j.name });
      const ms = j.timeoutMs;
      const signal = AbortSignal.timeout(ms);
      return pool.run(input, { module: j.module, name: j.name, signal }).catch((e: unknown) => {
        throw signal.aborted ? runtimeError('JOB_TIMEOUT', `cpu job ${j.name} took over ${ms} ms: stopped with its thread`) : e;
      });
    },
  };
}

/** The service plus every channel brokered to it: each is served until its far end closes or the runtime shuts down. */
export class CpuHub {
  readonly service: CpuService;
  private readonly open = new Set<() => void>();

  constructor(pool: CpuPool) {
    this.service = cpuService(pool);
  }

  port(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    const stop = serveRpc(port1, this.service);
    const done = (): void => {
      if (!this.open.delete(done)) return;
      stop();
    };
    port1.once('close', done);
    this.open.add(done);
    return port2;
  }

  /** Closes every channel (its pending calls reject on the client side): an open port would hold the process. */
  close(): void {
    for (const done of [...this.open]) done();
  }
}
