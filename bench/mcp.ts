// Suite `mcp`: MCP figures, each against a bare SDK client doing the same work in the same run:
// a tool call through the production path (tool declaration → RPC → mcp actor worker → hub → stdio server)
// and session start with 3 stdio servers (the hub connects in parallel).
import { resolve } from 'node:path';
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
import { figure, ms, stats, type Figure, type Suite } from './lib.js';

const SERVER = resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const CALLS = 200;
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

/** Per-call ms of CALLS sequential echo calls, in 5 samples after a warm-up. */
async function perCall(call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await call(i);
  const out: number[] = [];
  for (let s = 0; s < 5; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) await call(i);
    out.push(ms(t0) / CALLS);
  }
  return out;
}

function toolCtx(callId: string): ToolContext {
  const no = (): Promise<never> => Promise.reject(new Error('not in bench'));
  return {
    workspace: process.cwd(), signal: new AbortController().signal, agent: 'coding', taskId: 'bench', delegationId: null, boardId: 'bench', callId,
    askUser: no, store: { listNotes: no, readNote: no, readArtifact: no, writeArtifact: no }, delegate: no, loadTool: () => null,
  };
}

async function callOverhead(): Promise<Figure> {
  const rt = await Runtime.start({ preload: [], spares: 0 });
  const bare = await bareClient();
  try {
    await rt.startService({ name: MCP_ACTOR, module: MCP_MODULE, input: { servers: [spec('every')] }, restart: 'permanent', preload: [] });
    const mcp = rt.connect<McpApi>(MCP_ACTOR);
    await mcp.settled(20_000);
    const echo = mcpToolDeclarations(await mcp.catalogue('coding'), mcp).find((d) => d.name === 'mcp__every__echo');
    if (!echo) throw new Error('echo tool missing');
    // alternate the two paths so machine noise hits both alike
    const ours: number[] = [];
    const base: number[] = [];
    for (let round = 0; round < 2; round++) {
      base.push(...(await perCall((i) => bare.callTool({ name: 'echo', arguments: { message: `m${i}` } }))));
      ours.push(...(await perCall((i) => echo.execute({ message: `m${i}` }, toolCtx(`c${round}-${i}`)))));
    }
    return figure('mcp_call_ms', 'ms', ours, '<= 1.3x a bare SDK client calling the same server', (v, b) => b !== undefined && v <= 1.3 * b, {
      label: 'bare @modelcontextprotocol/sdk Client over stdio, same echo call, same server binary',
      value: stats(base).median,
    });
  } finally {
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
    return [await callOverhead(), await sessionStart()];
  },
};

export default suite;
