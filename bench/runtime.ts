// Benchmark suite `runtime`: actor start (warm/cold), idle memory, restart latency, critical-lane p99
// under saturation and drop accounting (production credit window and mailbox capacity), each beside the
// raw Node primitive.
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { ActorHost, DEFAULT_CREDIT_WINDOW, DEFAULT_PRELOAD, type ActorRequests } from '../src/runtime/actor-host.js';
import { DEFAULT_MAILBOX_CAPACITY } from '../src/runtime/dispatcher.js';
import { PACK_CHUNK } from '../src/runtime/publisher.js';
import { Runtime } from '../src/runtime/runtime.js';
import type { EventOf } from '../src/runtime/protocol/index.js';
import { figure, ms, repeat, round, stats, type Figure, type Suite } from './lib.js';
import { tokenFigures } from './runtime-tokens.js';

const FIXTURE = 'src/runtime/testing/fixture-actor.js';
const RAW = fileURLToPath(new URL('./runtime-raw-worker.js', import.meta.url));
const RUNS = 7;
const nowAbs = (): number => performance.timeOrigin + performance.now();
const pause = (msec: number): Promise<void> => new Promise((r) => setTimeout(r, msec));

const noRequests: ActorRequests = {
  publish: (a, events) => a.credit(events.length),
  connect: () => Promise.reject(new Error('no broker in bench')),
  spawn: () => Promise.reject(new Error('no spawn in bench')),
  spawnCancel: () => undefined,
  help: () => Promise.reject(new Error('no help in bench')),
  helpCancel: () => undefined,
};

/** A raw worker importing `preload`; resolves when it says ready. */
async function rawWorker(preload: string[]): Promise<Worker> {
  const w = new Worker(RAW, { workerData: { preload } });
  await new Promise<void>((resolve, reject) => {
    w.once('message', () => resolve());
    w.once('error', reject);
  });
  return w;
}

async function rawRoundTrip(w: Worker): Promise<number> {
  const t0 = process.hrtime.bigint();
  await new Promise<void>((r) => {
    w.once('message', () => r());
    w.postMessage({ type: 'ping' });
  });
  return ms(t0);
}

async function startFigures(): Promise<Figure[]> {
  const raw = await rawWorker(DEFAULT_PRELOAD);
  const rt = await repeat(50, () => rawRoundTrip(raw), 10);
  await raw.terminate();
  const warmHost = new ActorHost({ requests: noRequests, spares: 1 });
  await warmHost.warm();
  const warm = await repeat(RUNS, async () => {
    await warmHost.warm(); // a booted spare is ready before the measured start
    const t0 = process.hrtime.bigint();
    const h = await warmHost.start({ name: 'w', module: FIXTURE, input: { mode: 'wait_stop' }, taskId: 't', delegationId: null });
    const took = ms(t0);
    await h.stop('bench', 1000);
    return took;
  });
  await warmHost.close();
  // Raw and ours alternate sample by sample: on a shared box the load drifts, and two separate blocks
  // of samples turned that drift into the ratio (0.9x to 1.45x between runs of the same code).
  const coldHost = new ActorHost({ requests: noRequests, spares: 0 });
  const rawCold: number[] = [];
  const cold: number[] = [];
  await repeat(RUNS, async () => {
    let t0 = process.hrtime.bigint();
    const w = await rawWorker(DEFAULT_PRELOAD);
    rawCold.push(ms(t0));
    await w.terminate();
    t0 = process.hrtime.bigint();
    const h = await coldHost.start({ name: 'c', module: FIXTURE, input: { mode: 'wait_stop' }, taskId: 't', delegationId: null });
    cold.push(ms(t0));
    await h.stop('bench', 1000);
    return 0;
  });
  await coldHost.close();
  rawCold.splice(0, rawCold.length - RUNS); // drop the warm-up pair
  cold.splice(0, cold.length - RUNS);
  return [
    figure('actor_start_warm_p50', 'ms', warm, '<= 5 ms', (v) => v <= 5, { label: 'raw MessagePort round trip, worker already booted', value: stats(rt).median }),
    figure('actor_start_cold_p50', 'ms', cold, '<= 1.3x raw worker importing the same modules', (v, b) => v <= 1.3 * (b ?? 0), {
      label: `raw worker importing ${DEFAULT_PRELOAD.join(' + ')}, spawn -> first message`,
      value: stats(rawCold).median,
    }),
  ];
}

async function rssAfter(start: () => Promise<() => Promise<void>>, n: number): Promise<number> {
  global.gc?.();
  await pause(200);
  const before = process.memoryUsage().rss;
  const stops: (() => Promise<void>)[] = [];
  for (let i = 0; i < n; i++) stops.push(await start());
  await pause(500);
  global.gc?.();
  const after = process.memoryUsage().rss;
  for (const s of stops) await s();
  return (after - before) / n / 1024 / 1024;
}

async function memoryFigure(): Promise<Figure> {
  const n = 4;
  const raw: number[] = [];
  const ours: number[] = [];
  const host = new ActorHost({ requests: noRequests, spares: 0 });
  for (let i = 0; i < 3; i++) {
    raw.push(await rssAfter(async () => {
      const w = await rawWorker(DEFAULT_PRELOAD);
      return async () => void (await w.terminate());
    }, n));
    ours.push(await rssAfter(async () => {
      const h = await host.start({ name: `m${i}`, module: FIXTURE, input: { mode: 'wait_stop' }, taskId: 't', delegationId: null });
      return () => h.stop('bench', 1000);
    }, n));
  }
  await host.close();
  return figure('idle_actor_memory', 'MB', ours, '<= 1.3x raw worker importing the same modules', (v, b) => v <= 1.3 * (b ?? 0), {
    label: 'RSS per raw worker importing the same modules',
    value: stats(raw).median,
  });
}

async function restartFigure(rawColdMs: number): Promise<Figure> {
  const starts = new SharedArrayBuffer(4 * 64);
  const exitedAt = new Map<string, number>();
  const samples: number[] = [];
  const rt = await Runtime.start({
    shared: { starts },
    spares: 2,
    supervision: { intensity: 100, periodMs: 1000 },
    onSupervisorEvent: (e) => {
      if (e.type === 'child_exited' && e.restarting) exitedAt.set(e.child, performance.now());
      if (e.type === 'child_started' && e.restarts > 0) {
        const t = exitedAt.get(e.child);
        if (t !== undefined) samples.push(performance.now() - t);
      }
    },
  });
  const task = await rt.startTask('restart');
  for (let i = 0; i < RUNS + 1; i++) {
    await rt.warm();
    void task.spawn({ name: `r${i}`, module: FIXTURE, input: { mode: 'crash_once', slot: i, after: 'return' }, restart: 'transient' }).catch(() => undefined);
    const want = samples.length + 1;
    while (samples.length < want) await pause(5);
  }
  await rt.shutdown(2000);
  return figure('restart_to_running', 'ms', samples.slice(1), '<= 300 ms', (v) => v <= 300, { label: 'raw worker importing the same modules, spawn -> first message', value: rawColdMs });
}

/** The floor of the critical lane: a bare worker posting timestamped marks to this idle main thread, p99. */
async function rawIdleP99(): Promise<number> {
  const w = await rawWorker([]);
  const lat: number[] = [];
  await new Promise<void>((r) => {
    w.on('message', (m: unknown) => {
      if (m === 'end') r();
      else if (typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'mark') lat.push(nowAbs() - (m as { t: number }).t);
    });
    w.postMessage({ type: 'marks', n: 100 });
  });
  await w.terminate();
  return stats(lat).p99;
}

/** The floor of the same traffic: a bare worker posting ours' flood shape (the production credit window per round,
 *  a mark flushed with what was buffered before it, or ahead of it once the window is empty, as the publisher
 *  does; a long batch packed as the publisher packs it) to this main thread, which only reads the marks; p99. */
async function rawFloodP99(input: { normal: number; criticalEvery: number; rounds: number }): Promise<number> {
  const w = await rawWorker([]);
  const lat: number[] = [];
  await new Promise<void>((r) => {
    w.on('message', (m: unknown) => {
      if (m === 'end') return r();
      if (!Array.isArray(m)) return;
      for (const e of m as { type: string; t?: number }[]) if (e.type === 'mark') lat.push(nowAbs() - (e.t ?? 0));
    });
    w.postMessage({ type: 'flood', ...input, window: DEFAULT_CREDIT_WINDOW, pack: PACK_CHUNK });
  });
  await w.terminate();
  return stats(lat).p99;
}

async function saturationFigures(): Promise<Figure[]> {
  // production settings: the default credit window (DEFAULT_CREDIT_WINDOW) and mailbox capacity (DEFAULT_MAILBOX_CAPACITY)
  const rt = await Runtime.start({ preload: [], spares: 1, dispatcher: { onWarn: () => undefined } });
  await rt.warm();
  const FLOOD = { normal: 20_000, criticalEvery: 2_000, rounds: 10 };
  const p99s: number[] = [];
  const bases: number[] = [];
  let criticalLost = 0;
  let accountingError = 0;
  const ours = async (i: number, measured = true): Promise<void> => {
    const id = `sat${i}`;
    const task = await rt.startTask(id);
    const lat: number[] = [];
    const probe = rt.dispatcher.consume({ name: `probe${i}`, filter: { taskId: id, types: ['delegation_start'] } }, (env) => {
      lat.push(nowAbs() - Number((env.payload as EventOf<'delegation_start'>).task));
    });
    const slow = rt.dispatcher.subscribe({ name: `slow${i}`, filter: { taskId: id, types: ['ai_chunk'] } });
    if (slow.capacity !== DEFAULT_MAILBOX_CAPACITY) throw new Error('bench runtime: the slow consumer must run at the production capacity');
    // The flood starts once the spare its start took is replaced: as on the floor's side (its worker booted before its
    // flood), no worker boots while the marks are timed (the refill boot is ~70 ms of a third busy thread on 2 cores)
    rt.pauseTask(id);
    let held!: () => void;
    const atGate = new Promise<void>((r) => (held = r));
    const gate = rt.dispatcher.consume({ name: `gate${i}`, filter: { taskId: id, types: ['sub_agent_activity'] } }, () => held());
    const run = task.spawn<unknown, { normal: number; critical: number }>({ name: 'flood', module: FIXTURE, input: { mode: 'flood', ...FLOOD } });
    await Promise.race([atGate, run]);
    gate.mailbox.close();
    await rt.warm();
    rt.resumeTask(id);
    const out = await run;
    await pause(20);
    // a warm-up round still counts its losses and accounting: only its latency is left out
    criticalLost += out.critical - lat.length;
    let delivered = 0;
    while (slow.poll()) delivered++;
    const src = rt.dispatcher.dropped().bySource[id]?.ai_chunk ?? 0;
    accountingError += Math.abs(out.normal - (delivered + slow.stats().dropped + src));
    if (measured) p99s.push(stats(lat).p99);
    probe.mailbox.close();
    slow.close();
    await rt.endTask(id);
  };
  // one unmeasured pair first (bench/AGENTS.md rule 4): the first round compiled the ingress, zod and dispatcher paths
  await ours(-1, false);
  await rawFloodP99(FLOOD);
  // rounds alternate with the floor, order swapped each pair: load drift hits both sides alike
  for (let i = 0; i < 5; i++) {
    if (i % 2 === 0) {
      await ours(i);
      bases.push(await rawFloodP99(FLOOD));
    } else {
      bases.push(await rawFloodP99(FLOOD));
      await ours(i);
    }
  }
  await rt.shutdown(2000);
  const idle: number[] = [];
  for (let i = 0; i < 5; i++) idle.push(await rawIdleP99());
  const base = stats(bases).median;
  process.stderr.write(`runtime: critical p99 per round ${p99s.map(round).join(' ')} ms | bare flood floor ${bases.map(round).join(' ')} ms | idle post p99 ${round(stats(idle).median)} ms\n`);
  return [
    figure('critical_p99_under_saturation', 'ms', p99s, `<= 5 ms, 0 critical drops (lost: ${criticalLost})`, (v) => v <= 5 && criticalLost === 0, {
      label: `bare worker posting the same flood (credit window ${DEFAULT_CREDIT_WINDOW} per round, marks flushed with the buffer, or ahead of it once the window is empty) to a main thread that only reads the marks, p99, rounds alternating (ours: mailbox ${DEFAULT_MAILBOX_CAPACITY}, flood once the spare refill is done)`,
      value: base,
    }),
    figure('drop_accounting_error', 'events', [accountingError], 'sent = delivered + dropped exactly (0)', (v) => v === 0),
  ];
}

const suite: Suite = {
  name: 'runtime',
  async run() {
    const start = await startFigures();
    const mem = await memoryFigure();
    const restart = await restartFigure(start[1]?.baseline_value ?? 0);
    const sat = await saturationFigures();
    const tokens = await tokenFigures();
    return [...start, mem, restart, ...sat, ...tokens];
  },
};
export default suite;
