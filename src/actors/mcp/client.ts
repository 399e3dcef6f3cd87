// A leaf for clients: the mcp actor's name, module and input (loads neither the SDK nor the tools layer).
import type { YagentConfig } from '../../runtime/config/types.js';
import type { McpActorInput } from './mcp-actor.js';

export const MCP_ACTOR = 'mcp';
export const MCP_MODULE = 'src/actors/mcp/mcp-actor.js';

/** The mcp actor's input, or null when there is nothing to start (no servers, or YAGENT_MCP=0). */
export function mcpInputFromConfig(config: Pick<YagentConfig, 'mcp'>): McpActorInput | null {
  if (!config.mcp.enabled || config.mcp.servers.length === 0) return null;
  return { servers: config.mcp.servers };
}
