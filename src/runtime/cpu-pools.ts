// The CPU pools a runtime owns: ad-hoc piscina pools and the process's one shared pool (served to workers as
// CPU_SERVICE), all closed at shutdown.
import type { MessagePort } from 'node:worker_threads';
import { createCpuPool, type CpuPool } from './cpu-pool.js';
import { CpuHub, type CpuService } from './cpu-service.js';

export class CpuPools {
  private readonly pools: CpuPool[] = [];
  private hub: CpuHub | undefined;

  /** nice > 0: every pool thread runs that far below the main thread (a screen draws: `RuntimeOptions.workerNice`). */
  constructor(private readonly nice = 0) {}

  /** A piscina pool for stateless CPU jobs (module under dist/). */
  pool(module: string | null, opts?: { maxThreads?: number; idleTimeoutMs?: number }): CpuPool {
    const pool = createCpuPool(module, { ...opts, nice: this.nice });
    this.pools.push(pool);
    return pool;
  }

  /** The shared pool's service. One thread: each job module's state (a tokenizer's ranks, ~60-150 MB) loads once. */
  get service(): CpuService {
    return this.shared().service;
  }

  /** A channel to the shared pool for a worker (served on this thread, relayed to piscina). */
  port(): MessagePort {
    return this.shared().port();
  }

  /** Closes every brokered channel (an open port would keep the process alive), then every pool. */
  async close(): Promise<void> {
    this.hub?.close();
    await Promise.all(this.pools.splice(0).map((p) => p.close()));
  }

  private shared(): CpuHub {
    return (this.hub ??= new CpuHub(this.pool(null, { maxThreads: 1, idleTimeoutMs: 600_000 })));
  }
}
