// The floor under `start_to_first_model_request` (stderr only, beside the figure): a Director asks the model from a
// worker, so no start can beat a process whose worker boots. Spawn → message read, alternating with the reference loop.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { AGENT_MODULE, AGENT_THREAD } from '../src/actors/agents/agent-module.js';
import { THREAD_WORKER, distRoot } from '../src/runtime/dist-paths.js';
import { stats } from './lib.js';
import { runReference, type prepare, type ScriptedModel } from './side-by-side.js';

// the line carries the process's CPU so far (main thread + worker, ms): the load-robust side of the same floor
const worker = (make: string): string =>
  `const { Worker } = require('node:worker_threads'); const w = ${make}; w.on('message', (m) => { if (m === 1 || m.type === 'ready') { const u = process.cpuUsage(); process.stdout.write('ready ' + (u.user + u.system) / 1000 + '\\n'); process.exit(0); } });`;

interface Timed { ms: number; cpuMs: number }

/** spawn → the first stdout line of `node -e code` (ms), and the CPU that line reports. */
function timed(code: string): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'ignore'] });
    c.stdout.once('data', (d: Buffer) => resolve({ ms: performance.now() - t0, cpuMs: Number(/ready ([0-9.]+)/.exec(d.toString())?.[1] ?? NaN) }));
    c.once('error', reject);
  });
}

/** Medians of: the reference loop (spawn → first request), a bare worker's first message, and the Director's thread
 *  bundle booted with its code cache (spawn → `ready`, nothing run yet), with the two workers' process CPU at that
 *  message; `runs` rounds, order rotating. */
export async function startFloors(model: ScriptedModel, dir: string, p: ReturnType<typeof prepare>, runs: number): Promise<{ reference: number; bareWorker: number; agentWorker: number; bareWorkerCpu: number; agentWorkerCpu: number }> {
  const root = distRoot();
  const bare = worker(`new Worker("require('node:worker_threads').parentPort.postMessage(1)", { eval: true })`);
  const data = JSON.stringify({ bundle: join(root, AGENT_THREAD.bundle), packages: {}, preload: [AGENT_MODULE] });
  const agent = worker(`new Worker(${JSON.stringify(join(root, THREAD_WORKER))}, { workerData: ${data} })`);
  const sides: Record<'reference' | 'bareWorker' | 'agentWorker', () => Promise<Timed>> = {
    reference: async () => ({ ms: (await runReference(model, dir, p)).startMs, cpuMs: NaN }),
    bareWorker: () => timed(bare),
    agentWorker: () => timed(agent),
  };
  const keys = Object.keys(sides) as (keyof typeof sides)[];
  const out = { reference: [] as Timed[], bareWorker: [] as Timed[], agentWorker: [] as Timed[] };
  for (const k of keys) await sides[k](); // warm the page cache
  for (let i = 0; i < runs; i++) for (let j = 0; j < keys.length; j++) {
    const k = keys[(i + j) % keys.length] as keyof typeof sides;
    out[k].push(await sides[k]());
  }
  const med = (xs: Timed[], k: keyof Timed): number => stats(xs.map((x) => x[k])).median;
  return { reference: med(out.reference, 'ms'), bareWorker: med(out.bareWorker, 'ms'), agentWorker: med(out.agentWorker, 'ms'), bareWorkerCpu: med(out.bareWorker, 'cpuMs'), agentWorkerCpu: med(out.agentWorker, 'cpuMs') };
}
