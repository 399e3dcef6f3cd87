// An agent's MCP tools: waits (bounded) for servers still connecting, then builds cold declarations.
import type { Remote } from '../../runtime/actor.js';
import { publishWarning } from '../../runtime/log-event.js';
import type { YagentConfig } from '../../runtime/config/types.js';
import type { ToolDeclaration } from '../tools/types.js';
import type { Publish } from '../agents/loop-contract.js';
import { MCP_ACTOR, mcpInputFromConfig } from './client.js';
import type { McpApi } from './mcp-actor.js';
import { mcpToolDeclarations } from './tools.js';

/** Below the RPC timeout: an agent waits at most this long for servers still connecting. */
const MAX_SETTLE_MS = 20_000;

/** The MCP tools an agent of `role` sees (cold, namespaced); [] without servers for it. Waits for servers still
 *  connecting; a server of this agent that is not ready is reported to every client as a warn `log` event. */
export async function mcpToolsFor(connect: <T>(name: string) => Remote<T>, config: Pick<YagentConfig, 'mcp'>, role: string, publish: Publish): Promise<ToolDeclaration[]> {
  if (mcpInputFromConfig(config) === null || !config.mcp.servers.some((s) => s.agents.includes(role))) return [];
  const mcp = connect<McpApi>(MCP_ACTOR);
  const wait = Math.min(MAX_SETTLE_MS, Math.max(...config.mcp.servers.map((s) => s.startupTimeoutMs)));
  try {
    await mcp.settled(wait);
    const mine = new Set(config.mcp.servers.filter((s) => s.agents.includes(role)).map((s) => s.name));
    for (const st of await mcp.status()) {
      if (mine.has(st.name) && st.state !== 'ready') {
        publish({ type: 'log', level: 'warn', message: `MCP server ${st.name} ${st.state}${st.error !== undefined ? `: ${st.error}` : ''} (its tools are not available to ${role})` });
      }
    }
    return mcpToolDeclarations(await mcp.catalogue(role), mcp);
  } catch (err) {
    // the mcp actor is down (it crashed past its restart budget) or restarting: this run goes on without MCP
    publishWarning(publish, 'mcp', `MCP is not reachable (its tools are not available to ${role})`, err);
    return [];
  }
}
