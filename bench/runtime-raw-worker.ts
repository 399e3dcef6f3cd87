// Raw baseline worker for bench/runtime.ts: imports the same modules, then echoes or posts marks on request.
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (!port) throw new Error('run as a worker');
const preload = (workerData as { preload?: string[] } | undefined)?.preload ?? [];
for (const m of preload) await import(m);
const mark = (): void => port.postMessage({ type: 'mark', t: performance.timeOrigin + performance.now() });
type Flood = { type: 'flood'; normal: number; criticalEvery: number; rounds: number; window: number; pack: number };
/** A batch as the publisher posts it (`packEvents`): over `pack` events without a mark, JSON text chunks of `pack`. */
const wire = (buf: { type: string }[], pack: number): unknown[] => {
  if (buf.length <= pack || buf.some((e) => e.type === 'mark')) return buf;
  const out: string[] = [];
  for (let i = 0; i < buf.length; i += pack) out.push(JSON.stringify(buf.slice(i, i + pack)));
  return out;
};
/** Ours' flood shape over a bare port: each round a window of normal events, a timestamped mark every
 *  criticalEvery events posted at once with what was buffered before it, or alone ahead of it once the window
 *  is empty (as the publisher flushes a critical); the round's first event alone (the first of a turn); a long batch
 *  of normal events packed as the publisher packs it. */
async function flood(m: Flood): Promise<void> {
  let sent = 0;
  for (let r = 0; r < m.rounds; r++) {
    let credits = m.window;
    let buf: { type: string }[] = [];
    for (let i = 0; i < m.normal; i++) {
      // every event is built, as the actor builds each one it publishes (a dropped one too): the same producer work
      const ev = { type: 'ai_chunk', agent: 'fixture', text: `c${sent}` };
      if (credits > 0) {
        credits--;
        buf.push(ev);
        // the round's first event leaves at once, as the publisher posts the first event of a turn
        if (i === 0) port?.postMessage(buf.splice(0));
      }
      sent++;
      if (i % m.criticalEvery === 0) {
        const mark = { type: 'mark', t: performance.timeOrigin + performance.now() };
        if (credits <= 0 && buf.length > 0) port?.postMessage([mark]);
        else buf.push(mark);
        port?.postMessage(wire(buf, m.pack));
        buf = [];
      }
    }
    if (buf.length > 0) port?.postMessage(wire(buf, m.pack));
    await new Promise((r) => setTimeout(r, 1));
  }
  port?.postMessage('end');
}
port.on('message', (m: { type: string; n?: number } | Flood) => {
  if (m.type === 'flood') void flood(m as Flood);
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
