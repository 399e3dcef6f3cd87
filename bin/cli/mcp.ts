// `yagent mcp list | tools SERVER | call SERVER TOOL [JSON_ARGS]`: MCP diagnostics in the same process, over
// the same hub the mcp actor runs. SERVER is a configured name, an http(s) URL or a stdio command line.
import { parseArgs } from 'node:util';
import { McpHub, type McpToolInfo, type ServerStatus } from '../../src/actors/mcp/hub.js';
import { isConfigError } from '../../src/runtime/config/errors.js';
import { loadConfig } from '../../src/runtime/config/index.js';
import { MCP_DEFAULT_STARTUP_MS, MCP_DEFAULT_TOOL_MS, type McpServerSpec } from '../../src/runtime/config/mcp-servers.js';
import { createTaskGroup } from '../../src/runtime/index.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { Streams } from './output.js';

export const MCP_USAGE = `usage: yagent mcp [-c CONFIG] <command>

  list                          configured servers: state, transport, tool count (exit 1 if one failed)
  tools SERVER                  the server's tools: name, read-only / write / destructive / task-only, description
  call SERVER TOOL [JSON_ARGS]  call one tool and print its result (exit 1 on a tool error)

SERVER is a configured [[mcp.servers]] name, an http(s) URL (Streamable HTTP), or a stdio command line
in quotes, e.g. yagent mcp tools "npx -y @modelcontextprotocol/server-everything".
Exit codes: 0 ok, 1 a server or tool error, 2 a configuration or usage error.
`;

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

function adHoc(target: string): McpServerSpec {
  const base = { args: [], env: {}, headers: {}, agents: [], allowWrite: false, startupTimeoutMs: MCP_DEFAULT_STARTUP_MS, toolTimeoutMs: MCP_DEFAULT_TOOL_MS };
  if (/^https?:\/\//.test(target)) return { ...base, name: 'url', transport: 'http', url: target };
  const [command, ...args] = splitCommandLine(target);
  return { ...base, name: 'cmd', transport: 'stdio', command: command ?? '', args };
}

function statusLine(s: ServerStatus): string {
  const mark = s.state === 'ready' ? 'ok  ' : 'FAIL';
  return `${mark} ${s.name.padEnd(16)} ${s.transport.padEnd(5)} ${String(s.tools).padStart(3)} tools${s.error !== undefined ? `  ${s.error}` : ''}`;
}

async function withHub<T>(specs: McpServerSpec[], fn: (hub: McpHub) => Promise<T>): Promise<T> {
  const hub = new McpHub(specs, { tasks: createTaskGroup(), maxRestarts: 0 });
  try {
    await hub.start();
    return await fn(hub);
  } finally {
    await hub.close();
  }
}

export async function runMcp(argv: string[], io: Streams): Promise<ExitCode> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    io.stderr(`yagent mcp: ${(err as Error).message}\n${MCP_USAGE}`);
    return EXIT.config;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help === true || command === undefined || command === 'help') {
    io.stdout(MCP_USAGE);
    return command === undefined && parsed.values.help !== true ? EXIT.config : EXIT.ok;
  }
  let servers: McpServerSpec[];
  try {
    const { config } = await loadConfig(parsed.values.config !== undefined ? { configPath: parsed.values.config } : {});
    servers = config.mcp.servers;
  } catch (err) {
    if (!isConfigError(err)) throw err;
    io.stderr(`${err.lines().join('\n')}\n`);
    return EXIT.config;
  }
  const pick = (target: string | undefined): McpServerSpec | null => {
    if (target === undefined || target === '') return null;
    return servers.find((s) => s.name === target) ?? (/^https?:\/\//.test(target) || /\s|\//.test(target) ? adHoc(target) : null);
  };
  switch (command) {
    case 'list': {
      if (servers.length === 0) {
        io.stdout('no MCP servers configured (add [[mcp.servers]] tables to the config; see `yagent mcp --help`)\n');
        return EXIT.ok;
      }
      return withHub(servers, async (hub) => {
        const all = hub.status();
        io.stdout(`${all.map(statusLine).join('\n')}\n`);
        return all.every((s) => s.state === 'ready') ? EXIT.ok : EXIT.error;
      });
    }
    case 'tools':
    case 'call': {
      const spec = pick(rest[0]);
      if (spec === null) {
        io.stderr(`yagent mcp: ${rest[0] === undefined ? `${command} needs a SERVER` : `no MCP server named "${rest[0]}" in the config`}\n  fix:   name one of: ${servers.map((s) => s.name).join(', ') || '(none configured)'}, an http(s) URL, or a quoted command line\n`);
        return EXIT.config;
      }
      let args: Record<string, unknown> = {};
      if (command === 'call') {
        if (rest[1] === undefined) {
          io.stderr('yagent mcp: call needs SERVER TOOL [JSON_ARGS]\n');
          return EXIT.config;
        }
        try {
          const v: unknown = JSON.parse(rest[2] ?? '{}');
          if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
          args = v as Record<string, unknown>;
        } catch (err) {
          io.stderr(`yagent mcp: JSON_ARGS must be one JSON object (${(err as Error).message})\n  fix:   quote it, e.g. '{"message":"hi"}'\n`);
          return EXIT.config;
        }
      }
      return withHub([spec], async (hub) => {
        const [st] = hub.status();
        if (st === undefined || st.state !== 'ready') {
          io.stderr(`yagent mcp: server ${spec.name} is not available: ${st?.error ?? 'unknown state'}\n`);
          return EXIT.error;
        }
        if (command === 'tools') {
          // task-only tools are listed (the server has them) but agents never get them: plain tools/call cannot run them
          const mark = (t: McpToolInfo): string => (t.taskOnly ? 'task-only' : t.readOnly ? 'read-only' : t.destructive ? 'destructive' : 'write');
          const rows = hub.tools().map((t) => `${t.name.padEnd(32)} ${mark(t).padEnd(11)} ${(t.description.split('\n')[0] ?? '').slice(0, 100)}`);
          io.stdout(`${rows.join('\n')}\n`);
          return EXIT.ok;
        }
        const r = await hub.call(spec.name, rest[1] ?? '', args);
        (r.isError ? io.stderr : io.stdout)(`${r.text}\n`);
        return r.isError ? EXIT.error : EXIT.ok;
      });
    }
    default:
      io.stderr(`yagent mcp: unknown command "${command}"\n${MCP_USAGE}`);
      return EXIT.config;
  }
}
