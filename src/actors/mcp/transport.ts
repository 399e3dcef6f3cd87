// Builds the SDK transport for one configured server: stdio (a child process) or Streamable HTTP.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerSpec } from '../../runtime/config/mcp-servers.js';

export interface BuiltTransport {
  transport: Transport;
  /** Last lines the server wrote on stderr (stdio only): the diagnosis when it fails to start. */
  stderrTail(): string;
  /** The stdio child's pid once started (tests and the process registry). */
  pid(): number | null;
}

const STDERR_TAIL_CHARS = 2000;

export function buildTransport(spec: McpServerSpec, env: NodeJS.ProcessEnv = process.env): BuiltTransport {
  if (spec.transport === 'http') {
    const headers: Record<string, string> = { ...spec.headers };
    if (spec.bearerTokenEnv !== undefined) {
      const token = env[spec.bearerTokenEnv];
      if (token === undefined || token === '') throw new Error(`environment variable ${spec.bearerTokenEnv} (bearer_token_env of MCP server "${spec.name}") is not set`);
      headers['Authorization'] = `Bearer ${token}`;
    }
    const transport = new StreamableHTTPClientTransport(new URL(spec.url ?? ''), { requestInit: { headers } });
    return { transport, stderrTail: () => '', pid: () => null };
  }
  // the child's environment is built (the SDK's safe default set + the server's own vars), never our whole env
  const stdio = new StdioClientTransport({
    command: spec.command ?? '',
    args: spec.args,
    env: { ...getDefaultEnvironment(), ...spec.env },
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    stderr: 'pipe',
  });
  let tail = '';
  stdio.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  return { transport: stdio, stderrTail: () => tail.trim(), pid: () => stdio.pid };
}
