// Raw baseline worker for bench/runtime.ts: imports the same modules, then echoes or posts marks on request.
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (!port) throw new Error('run as a worker');
const preload = (workerData as { preload?: string[] } | undefined)?.preload ?? [];
for (const m of preload) await import(m);
const mark = (): void => port.postMessage({ type: 'mark', t: performance.timeOrigin + performance.now() });
port.on('message', (m: { type: string; n?: number }) => {
  if (m.type === 'ping') port.postMessage({ type: 'pong', t: performance.timeOrigin + performance.now() });
  if (m.type === 'marks') {
    // one mark per macrotask, nothing else on either thread: the idle floor of a worker -> main post
    let left = m.n ?? 0;
    const next = (): void => {
      if (left-- <= 0) return void port.postMessage('end');
      mark();
      setTimeout(next, 1);
    };
    next();
  }
});
port.postMessage({ type: 'ready' });
