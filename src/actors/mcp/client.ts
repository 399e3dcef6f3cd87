// A leaf for clients: the mcp actor's name, module and input (loads neither the SDK nor the tools layer).
import type { YagentConfig } from '../../runtime/config/types.js';
import type { ServiceSpec } from '../../runtime/runtime.js';
import type { McpActorInput } from './mcp-actor.js';

export const MCP_ACTOR = 'mcp';

/** `ctx.shared` key: an Int32 the mcp actor bumps at every catalogue change (a server ready, failed, list_changed);
 *  a running agent compares it at each step and refetches its MCP tools only when it moved. */
export const MCP_SHARED_KEY = 'mcp.catalogue-generation';

export function createMcpShared(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}
export const MCP_MODULE = 'src/actors/mcp/mcp-actor.js';

/** The mcp actor's input, or null when there is nothing to start (no servers, or YAGENT_MCP=0). */
export function mcpInputFromConfig(config: Pick<YagentConfig, 'mcp'>): McpActorInput | null {
  if (!config.mcp.enabled || config.mcp.servers.length === 0) return null;
  return { servers: config.mcp.servers };
}

/** Crashes of the mcp actor within a minute that are restarted; one more and it stays down (agents run without it). */
export const MCP_ACTOR_RESTARTS = { intensity: 3, periodMs: 60_000 };

/** How the CLI starts the mcp actor: restarted on a crash, under its own budget, so that a crash loop of it
 *  (servers are other people's code) never escalates to the services supervisor and restarts the store. */
export function mcpServiceSpec(input: McpActorInput): ServiceSpec<McpActorInput> {
  return { name: MCP_ACTOR, module: MCP_MODULE, input, restart: 'permanent', preload: [], isolate: MCP_ACTOR_RESTARTS };
}
