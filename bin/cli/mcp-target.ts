// What `yagent mcp` SERVER names (a configured server, an http(s) URL, a stdio command line) and the short
// argument hint printed beside a tool, so a user can write JSON_ARGS without reading the server's source.
import { closest, distance } from 'fastest-levenshtein';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findCommand } from '../../src/runtime/find-command.js';
import { MCP_DEFAULT_STARTUP_MS, MCP_DEFAULT_TOOL_MS, type McpServerSpec } from '../../src/runtime/config/mcp-servers.js';

/** Splits a command line on spaces, honouring single and double quotes (no shell is involved). */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let has = false;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur !== '') out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
    }
  }
  if (has || cur !== '') out.push(cur);
  return out;
}

export type Target =
  | { ok: true; spec: McpServerSpec; label: string; configured: boolean }
  | { ok: false; message: string; fix: string };

const adHocBase = { args: [], env: {}, headers: {}, agents: [], allowWrite: false, startupTimeoutMs: MCP_DEFAULT_STARTUP_MS, toolTimeoutMs: MCP_DEFAULT_TOOL_MS };

/** A configured name wins; then a URL; then a command line (a single word only when it is a command on PATH). */
export function resolveTarget(target: string, servers: readonly McpServerSpec[], configPath: string): Target {
  const named = servers.find((s) => s.name === target);
  if (named) return { ok: true, spec: named, label: `"${named.name}"`, configured: true };
  if (/^https?:\/\//i.test(target)) return { ok: true, spec: { ...adHocBase, name: 'url', transport: 'http', url: target }, label: target, configured: false };
  const words = splitCommandLine(target);
  const [command = '', ...args] = words;
  const path = getDefaultEnvironment()['PATH'];
  if (words.length > 1 || command.includes('/') || findCommand(command, path) !== null) {
    if (findCommand(command, path) === null) {
      return { ok: false, message: `command "${command}" not found${command.includes('/') ? ' (or not executable)' : ' on PATH'}`, fix: 'install it, or give its full path (SERVER is a configured name, an http(s) URL or a command line in quotes)' };
    }
    return { ok: true, spec: { ...adHocBase, name: 'cmd', transport: 'stdio', command, args }, label: `"${target}"`, configured: false };
  }
  const names = servers.map((s) => s.name);
  const near = names.length > 0 ? closest(target, names) : '';
  const hint = near !== '' && distance(target, near) <= Math.max(2, Math.floor(near.length / 3)) ? `; did you mean "${near}"?` : '';
  return names.length === 0
    ? { ok: false, message: `no MCP server "${target}": ${configPath} configures none (and "${target}" is no command on PATH)`, fix: 'add a [[mcp.servers]] table (name + command or url) to that file, or give SERVER as an http(s) URL or a command line in quotes' }
    : { ok: false, message: `no MCP server "${target}" in ${configPath}${hint}`, fix: `name one of: ${names.join(', ')}; or give an http(s) URL or a command line in quotes` };
}

/** `{message: string, count?: number}` from a JSON Schema object (top-level properties only, bounded). */
export function argsHint(schema: Record<string, unknown>): string {
  const props = (schema['properties'] ?? {}) as Record<string, { type?: unknown; enum?: unknown[] }>;
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  const parts = Object.entries(props).map(([k, v]) => {
    const type = Array.isArray(v.enum) ? v.enum.map((e) => JSON.stringify(e)).join('|') : Array.isArray(v.type) ? v.type.join('|') : typeof v.type === 'string' ? v.type : 'any';
    return `${k}${required.has(k) ? '' : '?'}: ${type}`;
  });
  const text = `{${parts.join(', ')}}`;
  return text.length > 80 ? `${text.slice(0, 77)}…}` : text;
}
