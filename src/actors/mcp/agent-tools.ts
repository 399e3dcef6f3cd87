// An agent's MCP tools: what the ready servers offer now (start-up never waits for MCP), then live updates: a server
// that becomes ready, fails or sends list_changed reaches a running agent at its next step.
import type { Remote } from '../../runtime/actor.js';
import { publishWarning } from '../../runtime/log-event.js';
import type { YagentConfig } from '../../runtime/config/types.js';
import type { ToolDeclaration } from '../tools/types.js';
import type { Publish } from '../agents/loop-contract.js';
import { MCP_ACTOR, MCP_SHARED_KEY, mcpInputFromConfig } from './client.js';
import type { McpApi } from './mcp-actor.js';
import { mcpToolDeclarations } from './tools.js';

export interface McpUpdate {
  tools: ToolDeclaration[];
  /** One line per server of this agent that failed: what the model is told (and every client, as a warning). */
  failed: string[];
}

export interface LiveMcpTools {
  /** The tools of the servers ready when the run started. */
  initial: ToolDeclaration[];
  /** The current tools when the catalogue changed since the last look (a cheap shared-counter check), else null. */
  refresh(): Promise<McpUpdate | null>;
}

const NONE: LiveMcpTools = { initial: [], refresh: () => Promise.resolve(null) };

/** The MCP tools an agent of `role` sees (cold, namespaced), without waiting for servers still connecting; a failed
 *  server of this agent is reported to every client as a warn `log` event. `shared`: ctx.shared (absent = no updates). */
export async function mcpToolsFor(
  connect: <T>(name: string) => Remote<T>,
  config: Pick<YagentConfig, 'mcp'>,
  role: string,
  publish: Publish,
  shared?: Readonly<Record<string, SharedArrayBuffer>>,
): Promise<LiveMcpTools> {
  if (mcpInputFromConfig(config) === null || !config.mcp.servers.some((s) => s.agents.includes(role))) return NONE;
  const mcp = connect<McpApi>(MCP_ACTOR);
  const buf = shared?.[MCP_SHARED_KEY];
  const generation = buf !== undefined ? new Int32Array(buf) : null;
  // read before the catalogue: a change while it is fetched is seen by the next refresh
  let seen = generation !== null ? Atomics.load(generation, 0) : 0;
  const fetch = async (): Promise<ToolDeclaration[]> => mcpToolDeclarations(await mcp.catalogue(role), mcp);
  try {
    // no wait (0 ms); it still asks a failed HTTP server to be tried again (hub.settled: at most every 30 s)
    await mcp.settled(0);
    const mine = new Set(config.mcp.servers.filter((s) => s.agents.includes(role)).map((s) => s.name));
    const told = new Set<string>();
    // servers of this agent that failed (each said once per run, to every client as a warning)
    const failures = async (): Promise<string[]> => {
      const lines: string[] = [];
      for (const st of await mcp.status()) {
        if (!mine.has(st.name) || st.state !== 'failed') continue;
        const line = `MCP server ${st.name} failed${st.error !== undefined ? `: ${st.error}` : ''} (its tools are not available to ${role})`;
        lines.push(line);
        if (!told.has(st.name)) publish({ type: 'log', level: 'warn', message: line });
        told.add(st.name);
      }
      return lines;
    };
    // a server that failed before this agent started reaches its model at the first step, as a later failure does
    let startFailed: string[] | null = await failures();
    if (startFailed.length === 0) startFailed = null;
    const initial = await fetch();
    return {
      initial,
      async refresh() {
        const changed = generation !== null && Atomics.load(generation, 0) !== seen;
        const unsaid = startFailed;
        startFailed = null;
        if (!changed) return unsaid !== null ? { tools: initial, failed: unsaid } : null;
        seen = Atomics.load(generation as Int32Array, 0);
        try {
          return { tools: await fetch(), failed: await failures() };
        } catch (err) {
          publishWarning(publish, 'mcp', `MCP tools could not be refreshed (${role} keeps the ones it has)`, err);
          return null;
        }
      },
    };
  } catch (err) {
    // the mcp actor is down (it crashed past its restart budget) or restarting: this run goes on without MCP
    publishWarning(publish, 'mcp', `MCP is not reachable (its tools are not available to ${role})`, err);
    return NONE;
  }
}
