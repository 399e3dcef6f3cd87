// Suite `mcp`: MCP figures, each against a bare SDK client doing the same work in the same run: a tool call through
// the production path (tool declaration → RPC → mcp actor worker → hub → stdio server), the raw floor of that design
// (the bare client behind one plain worker hop) and session start with 3 stdio servers (the hub connects in parallel).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpHub } from '../src/actors/mcp/hub.js';
import { MCP_ACTOR, MCP_MODULE } from '../src/actors/mcp/client.js';
import type { McpApi } from '../src/actors/mcp/mcp-actor.js';
import { mcpToolDeclarations } from '../src/actors/mcp/tools.js';
import type { McpServerSpec } from '../src/runtime/config/mcp-servers.js';
import { MCP_DEFAULT_STARTUP_MS, MCP_DEFAULT_TOOL_MS } from '../src/runtime/config/mcp-servers.js';
import { createTaskGroup } from '../src/runtime/index.js';
import { Runtime } from '../src/runtime/runtime.js';
import type { ToolContext } from '../src/actors/tools/types.js';
import { figure, ms, pairedFigure, round, stats, type Figure, type Suite } from './lib.js';

const SERVER = resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CALLS = 200;
const ROUNDS = 9;
const STARTS = 5;

const spec = (name: string): McpServerSpec => ({
  name, transport: 'stdio', command: process.execPath, args: [SERVER, 'stdio'], env: {}, headers: {},
  agents: ['coding'], allowWrite: false, startupTimeoutMs: MCP_DEFAULT_STARTUP_MS, toolTimeoutMs: MCP_DEFAULT_TOOL_MS,
});

async function bareClient(): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, 'stdio'], env: getDefaultEnvironment(), stderr: 'pipe' }));
  await client.listTools();
  return client;
}

/** This thread's CPU time so far in ns (Linux schedstat), 0 elsewhere. */
function threadCpuNs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** Per-call ms of CALLS sequential echo calls (one sample), with the CPU µs per call this process (every thread: the
 *  calling one, the worker's, the runtime's; not the servers) and this thread alone spent meanwhile. */
async function perCall(call: (i: number) => Promise<unknown>, cpu: { all: number[]; main: number[] }): Promise<number> {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const m0 = threadCpuNs();
  for (let i = 0; i < CALLS; i++) await call(i);
  const c = process.cpuUsage(c0);
  cpu.main.push((threadCpuNs() - m0) / 1000 / CALLS);
  cpu.all.push((c.user + c.system) / CALLS);
  return ms(t0) / CALLS;
}

/** The raw floor: a bare SDK client in a plain worker (bench/mcp-raw-worker.ts), one postMessage each way. */
async function floorWorker(): Promise<{ call(message: string): Promise<unknown>; close(): Promise<void> }> {
  const w = new Worker(fileURLToPath(new URL('./mcp-raw-worker.js', import.meta.url)), { workerData: { server: SERVER } });
  await new Promise<void>((ready, fail) => {
    w.once('message', () => ready());
    w.once('error', fail);
  });
  const pending = new Map<number, (v: unknown) => void>();
  let next = 0;
  w.on('message', (m: { id: number; result: unknown }) => {
    pending.get(m.id)?.(m.result);
    pending.delete(m.id);
  });
  return {
    call: (message) => new Promise((done) => {
      const id = next++;
      pending.set(id, done);
      w.postMessage({ id, message });
    }),
    close: async () => {
      w.postMessage({ close: true });
      await once(w, 'exit');
    },
  };
}

function toolCtx(callId: string, signal: AbortSignal): ToolContext {
  const no = (): Promise<never> => Promise.reject(new Error('not in bench'));
  return {
    workspace: process.cwd(), signal, agent: 'coding', taskId: 'bench', delegationId: null, boardId: 'bench', callId,
    askUser: no, store: { listNotes: no, readNote: no, readArtifact: no, writeArtifact: no, writeImageArtifact: no }, delegate: no, loadTool: () => null,
  };
}

/** Ours, the bare client, the raw worker floor and its twin, each round running all four (order rotating), after a warm-up. */
async function callOverhead(): Promise<Figure[]> {
  const rt = await Runtime.start({ preload: [], spares: 0 });
  const bare = await bareClient();
  const floor = await floorWorker();
  // the same floor twice: how far two identical sides drift apart in one run (the noise any ratio here carries)
  const twin = await floorWorker();
  try {
    await rt.startService({ name: MCP_ACTOR, module: MCP_MODULE, input: { servers: [spec('every')] }, restart: 'permanent', preload: [] });
    const mcp = rt.connect<McpApi>(MCP_ACTOR);
    await mcp.settled(20_000);
    const echo = mcpToolDeclarations(await mcp.catalogue('coding'), mcp).find((d) => d.name === 'mcp__every__echo');
    if (!echo) throw new Error('echo tool missing');
    // one turn signal for every call, as the adapter passes it
    const signal = new AbortController().signal;
    let seq = 0;
    const sides: ((i: number) => Promise<unknown>)[] = [
      (i) => echo.execute({ message: `m${i}` }, toolCtx(`c${seq++}`, signal)),
      (i) => bare.callTool({ name: 'echo', arguments: { message: `m${i}` } }),
      (i) => floor.call(`m${i}`),
      (i) => twin.call(`m${i}`),
    ];
    const out: number[][] = sides.map(() => []);
    const cpu = sides.map(() => ({ all: [] as number[], main: [] as number[] }));
    const scratch = { all: [] as number[], main: [] as number[] };
    for (let r = -1; r < ROUNDS; r++) {
      for (let j = 0; j < sides.length; j++) {
        const k = (j + Math.max(r, 0)) % sides.length;
        const sample = await perCall(sides[k] as (i: number) => Promise<unknown>, r >= 0 ? (cpu[k] ?? scratch) : scratch);
        if (r >= 0) out[k]?.push(sample);
      }
    }
    // CPU per call is what load does not inflate much: the evidence when wall times drift (bench/AGENTS.md)
    const med = (xs: number[]): number => Math.round(stats(xs).median);
    const names = ['ours', 'bare', 'floor', 'twin'];
    process.stderr.write(`mcp: CPU µs/call (medians; process = every thread of ours, servers excluded / calling thread) ${cpu.map((c, i) => `${names[i]} ${med(c.all)} / ${med(c.main)}`).join(', ')}\n`);
    const [ours = [], base = [], raw = [], raw2 = []] = out;
    const ratios = (a: number[], b: number[]): number[] => a.map((v, i) => v / (b[i] ?? v)).sort((x, y) => x - y);
    const spread = ratios(raw2, raw);
    process.stderr.write(`mcp: identical floor / floor per round ${round(spread[0] ?? 1)}-${round(spread.at(-1) ?? 1)}x (median ${round(stats(spread).median)}x); ours / floor per round ${ratios(ours, raw).map(round).join(' ')}\n`);
    return [
      pairedFigure('mcp_call_ms', 'ms', ours, base, '<= 1.3x a bare SDK client calling the same server', (v, b) => v <= 1.3 * b,
        'bare @modelcontextprotocol/sdk Client over stdio in the calling thread, same echo call, same server binary (same round; pair with the median ratio)'),
      // what the runtime RPC, the facade and the tool declaration add on top of the one hop the design needs
      pairedFigure('mcp_call_over_worker_floor_ms', 'ms', ours, raw, '<= 1.15x the bare client behind one plain worker hop', (v, b) => v <= 1.15 * b,
        'the same bare client in a plain worker behind one postMessage each way (bench/mcp-raw-worker.ts), its server a plain child in our session as ours is (same round; pair with the median ratio)'),
      pairedFigure('mcp_call_worker_floor_ms', 'ms', raw, base, '<= 1.3x the bare client (else the one-worker design cannot meet mcp_call_ms)', (v, b) => v <= 1.3 * b,
        'the same bare client in a plain worker behind one postMessage each way (bench/mcp-raw-worker.ts) against the bare client in the calling thread (same round; pair with the median ratio)'),
    ];
  } finally {
    await floor.close();
    await twin.close();
    await bare.close();
    await rt.shutdown();
  }
}

async function sessionStart(): Promise<Figure> {
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    let t0 = process.hrtime.bigint();
    const clients = [await bareClient(), await bareClient(), await bareClient()];
    base.push(ms(t0));
    await Promise.all(clients.map((c) => c.close()));
    t0 = process.hrtime.bigint();
    const hub = new McpHub([spec('a'), spec('b'), spec('c')], { tasks: createTaskGroup() });
    await hub.start();
    ours.push(ms(t0));
    if (hub.status().some((s) => s.state !== 'ready')) throw new Error('a server did not start');
    await hub.close();
  }
  return figure('mcp_start_3_servers_ms', 'ms', ours, '<= 0.7x the same 3 servers started one after another (parallel connect)', (v, b) => b !== undefined && v <= 0.7 * b, {
    label: '3 bare SDK clients connected + listTools sequentially',
    value: stats(base).median,
  });
}

const suite: Suite = {
  name: 'mcp',
  async run() {
    return [...(await callOverhead()), await sessionStart()];
  },
};

export default suite;
