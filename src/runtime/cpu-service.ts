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
      if (typeof j?.module !== 'string' || !JOB_MODULE.test(j.module) || typeof j.name !== 'string' || !JOB_NAME.test(j.name)) {
        return Promise.reject(runtimeError('BAD_JOB', `not a cpu job: ${JSON.stringify(job)}`));
      }
      return pool.run(input, { module: j.module, name: j.name });
    },
  };
}

/** One brokered channel to the service; served until the worker's end closes. */
export function cpuServicePort(service: CpuService): MessagePort {
  const { port1, port2 } = new MessageChannel();
  const stop = serveRpc(port1, service);
  port1.once('close', stop);
  return port2;
}
