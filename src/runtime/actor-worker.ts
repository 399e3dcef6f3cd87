// Generic actor worker bootstrap: preload heavy modules while idle (a warm spare), then start the named actor.
import './zod-jitless.js';
import { parentPort, workerData } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkerActor } from './worker-context.js';
import { ToWorkerSchema } from './protocol/index.js';

const port = parentPort;
if (!port) throw new Error('actor-worker must run inside a worker thread');

const data = (workerData ?? {}) as { preload?: unknown };
const preload = Array.isArray(data.preload) ? data.preload.filter((x): x is string => typeof x === 'string') : [];
// This file is dist/src/runtime/actor-worker.js, so dist/ is two levels up.
const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const actor = new WorkerActor(port, distRoot);
// Messages that arrive while preloading are queued, never lost.
const early: unknown[] = [];
let ready = false;
port.on('message', (m: unknown) => (ready ? actor.handle(m) : early.push(m)));

const t0 = performance.now();
const failed: string[] = [];
for (const spec of preload) {
  try {
    await import(spec);
  } catch {
    failed.push(spec);
  }
}
// Exercise the control-message schema once so its first real use (the start message) is already compiled.
ToWorkerSchema.safeParse({ type: 'pause', paused: false });
ToWorkerSchema.safeParse({ type: 'start', name: 'x', module: 'x.js', taskId: null, delegationId: null, input: null, shared: {}, paused: false, creditWindow: 1, rpcTimeoutMs: 1 });
port.postMessage({ type: 'ready', preloadMs: performance.now() - t0, failed });
ready = true;
for (const m of early.splice(0)) actor.handle(m);
