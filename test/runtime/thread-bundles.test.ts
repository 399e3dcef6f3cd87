// Thread bundles (AGENT_THREAD, STORE_THREAD): which preload boots one, what its worker runs, what it carries.
import { describe, expect, it } from 'vitest';
import { AGENT_MODULE, AGENT_THREAD } from '../../src/actors/agents/agent-module.js';
import { STORE_MODULE, STORE_THREAD } from '../../src/store/store-module.js';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { bootWorker, threadFor } from '../../src/runtime/spare-boot.js';
import { THREAD_WORKER, distFile, distRoot } from '../../src/runtime/dist-paths.js';
import { FIXTURE, startRuntime } from './helpers.js';

const THREADS = [AGENT_THREAD, STORE_THREAD];

describe('thread bundles', () => {
  it('a preload starting with a bundled module and naming only its packages boots the bundle; anything else the generic worker', () => {
    expect(threadFor([AGENT_MODULE], THREADS)).toBe(AGENT_THREAD);
    expect(threadFor([AGENT_MODULE, 'openai'], THREADS)).toBe(AGENT_THREAD);
    expect(threadFor([STORE_MODULE], THREADS)).toBe(STORE_THREAD);
    expect(threadFor([STORE_MODULE, 'openai'], THREADS)).toBeUndefined(); // the store bundle carries no SDK
    expect(threadFor(['zod', 'openai'], THREADS)).toBeUndefined();
    expect(threadFor([], THREADS)).toBeUndefined();
    expect(threadFor([AGENT_MODULE], [])).toBeUndefined();
  });

  it('each bundle boots with every package it declares (none fails to preload)', async () => {
    for (const t of THREADS) {
      const b = bootWorker(undefined, [t.modules[0] ?? '', ...t.packages], THREADS);
      expect(b.serves).toEqual(t.modules);
      const ready = await new Promise<{ failed: string[] }>((resolve, reject) => {
        b.worker.on('message', (m: { type?: string; failed: string[] }) => m.type === 'ready' && resolve(m));
        b.worker.once('error', reject);
      });
      expect(ready.failed).toEqual([]);
      await b.worker.terminate();
    }
  });

  it("a bundle's worker refuses a module it does not carry (a second runtime copy in its thread), with INVALID_SPEC", async () => {
    const b = bootWorker(undefined, [STORE_MODULE], THREADS);
    await b.ready;
    const reply = new Promise<{ type: string; error?: { code?: string; message: string } }>((resolve) => b.worker.on('message', (m: { type: string }) => m.type !== 'ready' && resolve(m)));
    b.worker.postMessage({ type: 'start', name: 'x', module: FIXTURE, taskId: null, delegationId: null, input: null, shared: {}, paused: false, creditWindow: 8, rpcTimeoutMs: 1000 });
    const m = await reply;
    expect(m.type).toBe('start_failed');
    expect(m.error?.code).toBe('INVALID_SPEC');
    expect(m.error?.message).toContain('not in this thread bundle');
    await b.worker.terminate();
  });

  it('a spawn of another module where the pool preloads a bundled actor gets a generic worker and runs', async () => {
    const { rt } = await startRuntime({ preload: [STORE_MODULE], spares: 1, threads: THREADS });
    const task = await rt.startTask('other-module');
    expect(await task.spawn({ name: 'echo', module: FIXTURE, input: { mode: 'echo', value: 7 } })).toMatchObject({ value: 7 });
    expect(rt.spareCount()).toBe(1); // the bundle's spare is still there for its own module
    await rt.shutdown(2000);
  });

  it('a booted store or agent worker has not loaded crypto or child_process (each path that needs one loads it: ~9 ms of boot)', async () => {
    for (const t of THREADS) {
      // the real entry and bundle; the probe reads the thread's module list when the bootstrap says ready
      const probe = `const { parentPort } = require('node:worker_threads'); const post = parentPort.postMessage.bind(parentPort);
        parentPort.postMessage = (m) => (m && m.type === 'ready' ? post({ loaded: process.moduleLoadList }) : post(m));
        require(${JSON.stringify(distFile(THREAD_WORKER))});`;
      const w = new Worker(probe, { eval: true, workerData: { bundle: join(distRoot(), t.bundle), packages: {}, preload: [t.modules[0]] } });
      const loaded = await new Promise<string[]>((resolve, reject) => {
        w.on('message', (m: { loaded?: string[] }) => m.loaded && resolve(m.loaded));
        w.once('error', reject);
      });
      await w.terminate();
      expect(loaded.some((m) => m.endsWith(' worker_threads')), t.bundle).toBe(true); // the list is the thread's own
      expect(loaded.filter((m) => / (crypto|child_process)$/.test(m)), t.bundle).toEqual([]);
    }
  });
});
