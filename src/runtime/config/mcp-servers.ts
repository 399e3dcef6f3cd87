// [[mcp.servers]] entries → validated server specs (stdio command or Streamable HTTP url), checked at load (exit 2).
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { ConfigError } from './errors.js';

export interface McpServerSpec {
  name: string;
  transport: 'stdio' | 'http';
  command?: string;
  args: string[];
  /** Extra variables for a stdio server (the rest of its env is the SDK's safe default set, never our secrets). */
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  /** Name of the environment variable holding a bearer token (read when connecting, never stored). */
  bearerTokenEnv?: string;
  /** Agent kinds whose surfaces list this server's tools. */
  agents: string[];
  /** Non-destructive write tools run under the project grant instead of asking on every call. */
  allowWrite: boolean;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
}

export const MCP_DEFAULT_AGENTS = ['coding', 'repo', 'devops'] as const;
/** Skills default to the agents that work on the repository. */
export const SKILL_DEFAULT_AGENTS = ['director', 'coding', 'repo', 'devops'] as const;
export const MCP_DEFAULT_STARTUP_MS = 10_000;
export const MCP_DEFAULT_TOOL_MS = 60_000;

const NAME = /^[A-Za-z0-9_-]{1,40}$/;

// built at its first use: a config without servers (and the pre-sent first request's check) never builds it
const rawServer = () => z.strictObject({
  name: z.string(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  bearer_token_env: z.string().min(1).optional(),
  agents: z.array(z.string()).optional(),
  allow_write: z.boolean().optional(),
  enabled: z.boolean().optional(),
  startup_timeout: z.union([z.string(), z.number()]).optional(),
  tool_timeout: z.union([z.string(), z.number()]).optional(),
});
let serverSchema: ReturnType<typeof rawServer> | undefined;

function ms(v: string | number | undefined, dflt: number, where: string): number {
  if (v === undefined) return dflt;
  const out = parseDuration(v);
  if (out === null || out <= 0) throw new ConfigError(`"${String(v)}" is not a positive duration`, where, 'write it like "10s" or "2m"');
  return out;
}

/** Validates every entry; disabled ones (`enabled = false`) are left out. */
export function parseMcpServers(raw: readonly Record<string, unknown>[], file: string): McpServerSpec[] {
  const out: McpServerSpec[] = [];
  const seen = new Set<string>();
  raw.forEach((entry, i) => {
    const label = typeof entry['name'] === 'string' ? `"${entry['name']}"` : `#${i + 1}`;
    const where = `${file}: [[mcp.servers]] ${label}`;
    const res = (serverSchema ??= rawServer()).safeParse(entry);
    if (!res.success) {
      const issue = res.error.issues[0];
      const key = issue?.path.join('.') ?? '';
      throw new ConfigError(`${key === '' ? 'entry' : `key "${key}"`}: ${issue?.message ?? 'invalid'}`, where, 'each server needs name and either command (stdio) or url (http); see the [[mcp.servers]] example in the template');
    }
    const s = res.data;
    if (!NAME.test(s.name)) throw new ConfigError(`server name "${s.name}" must be 1-40 letters, digits, _ or -`, where, 'rename it (tools are named mcp__<server>__<tool>)');
    if (seen.has(s.name)) throw new ConfigError(`server "${s.name}" is defined twice`, where, 'give each server its own name');
    seen.add(s.name);
    if ((s.command === undefined) === (s.url === undefined)) throw new ConfigError('a server needs exactly one of command or url', where, 'command = "npx" (stdio) or url = "http://127.0.0.1:3001/mcp" (Streamable HTTP)');
    if (s.url !== undefined && !/^https?:\/\/[^\s]+$/.test(s.url)) throw new ConfigError(`url "${s.url}" is not an http(s) URL`, where, 'write it like "http://127.0.0.1:3001/mcp"');
    if (s.enabled === false) return;
    out.push({
      name: s.name,
      transport: s.url !== undefined ? 'http' : 'stdio',
      ...(s.command !== undefined ? { command: s.command } : {}),
      args: s.args ?? [],
      env: s.env ?? {},
      ...(s.cwd !== undefined ? { cwd: s.cwd } : {}),
      ...(s.url !== undefined ? { url: s.url } : {}),
      headers: s.headers ?? {},
      ...(s.bearer_token_env !== undefined ? { bearerTokenEnv: s.bearer_token_env } : {}),
      agents: s.agents ?? [...MCP_DEFAULT_AGENTS],
      allowWrite: s.allow_write ?? false,
      startupTimeoutMs: ms(s.startup_timeout, MCP_DEFAULT_STARTUP_MS, `${where} startup_timeout`),
      toolTimeoutMs: ms(s.tool_timeout, MCP_DEFAULT_TOOL_MS, `${where} tool_timeout`),
    });
  });
  return out;
}
