// Raw baseline worker for bench/runtime.ts: imports the same modules, then echoes or floods on request.
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (!port) throw new Error('run as a worker');
const preload = (workerData as { preload?: string[] } | undefined)?.preload ?? [];
for (const m of preload) await import(m);
port.on('message', (m: { type: string; n?: number; batch?: number; markEvery?: number }) => {
  if (m.type === 'ping') port.postMessage({ type: 'pong', t: performance.timeOrigin + performance.now() });
  if (m.type === 'flood') {
    const n = m.n ?? 0;
    const batch = m.batch ?? 256;
    let sent = 0;
    while (sent < n) {
      const arr = [];
      for (let i = 0; i < batch && sent < n; i++, sent++) {
        arr.push({ type: 'ai_chunk', agent: 'raw', text: `c${sent}` });
        if (m.markEvery && sent % m.markEvery === 0) port.postMessage({ type: 'mark', t: performance.timeOrigin + performance.now() });
      }
      port.postMessage(arr);
    }
    port.postMessage('end');
  }
});
port.postMessage({ type: 'ready' });
