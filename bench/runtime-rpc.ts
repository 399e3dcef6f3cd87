// Figure for suite `runtime`: comlink vs the hand-written rpc.ts on the same workload and the same worker
// (round trip p50/p99, 64 calls in flight). Issue 11: comlink replaces rpc.ts only within 1.2x.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { wrap, type Endpoint, type Remote as LinkRemote } from 'comlink';
import { RpcClient } from '../src/runtime/rpc.js';
import { figure, stats, type Figure } from './lib.js';

const WORKER = fileURLToPath(new URL('./runtime-rpc-worker.js', import.meta.url));
const RUNS = 7;
const SEQUENTIAL = 2000;
const BURST = 6400;
const IN_FLIGHT = 64;

type Target = { append(taskId: string, record: { seq: number }): { taskId: string; seq: number; ok: boolean } };
type Call = (i: number) => Promise<unknown>;

/** comlink's Endpoint over a node MessagePort (what comlink's node adapter does). */
export function portEndpoint(port: MessagePort): Endpoint {
  const wrapped = new WeakMap<object, (data: unknown) => void>();
  return {
    postMessage: (m: unknown, t?: unknown[]) => port.postMessage(m, t as never),
    addEventListener: (_type: string, h: unknown) => {
      const l = (data: unknown): void => (typeof h === 'function' ? h({ data }) : (h as { handleEvent(e: unknown): void }).handleEvent({ data }));
      wrapped.set(h as object, l);
      port.on('message', l);
    },
    removeEventListener: (_type: string, h: unknown) => {
      const l = wrapped.get(h as object);
      if (l) port.off('message', l);
    },
  };
}

const record = (i: number): { seq: number; type: string; text: string } => ({ seq: i, type: 'ai_chunk', text: `chunk ${i} of a streamed answer` });

async function latencies(call: Call): Promise<{ p50: number; p99: number }> {
  const s: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now();
    await call(i);
    s.push((performance.now() - t0) * 1000);
  }
  const st = stats(s);
  return { p50: st.median, p99: st.p99 };
}

async function throughput(call: Call): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    while (next < BURST) await call(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return BURST / ((performance.now() - t0) / 1000);
}

export async function rpcFigures(): Promise<Figure[]> {
  const a = new MessageChannel();
  const b = new MessageChannel();
  const w = new Worker(WORKER, { workerData: { rpc: a.port2, link: b.port2 }, transferList: [a.port2, b.port2] });
  const client = new RpcClient(() => Promise.resolve(a.port1), { target: 'bench' });
  const ours = client.proxy<Target>();
  const theirs: LinkRemote<Target> = wrap<Target>(portEndpoint(b.port1));
  // comlink makes a Proxy (and a finalizer registration) per property access: take the method once, as an adapter would.
  const append = theirs.append;
  const calls: Record<'rpc' | 'comlink', Call> = {
    rpc: (i) => ours.append('t1', record(i)),
    comlink: (i) => append('t1', record(i)),
  };
  for (const c of Object.values(calls)) await latencies(c);
  const lat = { rpc: [] as { p50: number; p99: number }[], comlink: [] as { p50: number; p99: number }[] };
  const tp = { rpc: [] as number[], comlink: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    // Alternate which side goes first so load drift does not favour one of them.
    for (const k of r % 2 === 0 ? (['rpc', 'comlink'] as const) : (['comlink', 'rpc'] as const)) {
      lat[k].push(await latencies(calls[k]));
      tp[k].push(await throughput(calls[k]));
    }
  }
  client.close();
  b.port1.close();
  await w.terminate();
  const med = (xs: number[]): number => stats(xs).median;
  const within = '<= 1.2x rpc.ts (else keep rpc.ts)';
  return [
    figure('comlink_roundtrip_p50', 'us', lat.comlink.map((x) => x.p50), within, (v, base) => v <= 1.2 * (base ?? 0), {
      label: 'rpc.ts round trip p50, same worker and payload',
      value: med(lat.rpc.map((x) => x.p50)),
    }),
    figure('comlink_roundtrip_p99', 'us', lat.comlink.map((x) => x.p99), within, (v, base) => v <= 1.2 * (base ?? 0), {
      label: 'rpc.ts round trip p99, same worker and payload',
      value: med(lat.rpc.map((x) => x.p99)),
    }),
    figure(`comlink_throughput_${IN_FLIGHT}_in_flight`, 'calls/s', tp.comlink, '>= rpc.ts / 1.2 (else keep rpc.ts)', (v, base) => v >= (base ?? 0) / 1.2, {
      label: `rpc.ts, ${IN_FLIGHT} calls in flight`,
      value: med(tp.rpc),
    }),
  ];
}
