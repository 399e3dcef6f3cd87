// `yagent mcp list | tools SERVER | call SERVER TOOL [JSON_ARGS]`: MCP diagnostics in the same process, over
// the same hub the mcp actor runs. SERVER is a configured name, an http(s) URL or a stdio command line.
// Every failure is one `yagent mcp:` line saying what went wrong and a `fix:` line saying what to do.
import { parseArgs } from 'node:util';
import { closest } from 'fastest-levenshtein';
import { McpHub, type McpToolInfo, type ServerStatus } from '../../src/actors/mcp/hub.js';
import { isConfigError } from '../../src/runtime/config/errors.js';
import { defaultConfigPath, loadConfig } from '../../src/runtime/config/index.js';
import type { McpServerSpec } from '../../src/runtime/config/mcp-servers.js';
import { createTaskGroup } from '../../src/runtime/index.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { argsHint, resolveTarget } from './mcp-target.js';
import type { Streams } from './output.js';

export { splitCommandLine } from './mcp-target.js';

export const MCP_USAGE = `usage: yagent mcp [-c CONFIG] <command>

  list                          configured servers: state, transport, tool count (exit 1 if one failed)
  tools SERVER                  the server's tools: name, read-only / write / destructive / task-only, arguments
  call SERVER TOOL [JSON_ARGS]  call one tool and print its result (exit 1 on a tool error; Ctrl-C cancels it)
  serve-code [-w DIR]           serve the code search tools (codeseek_*) over stdio for DIR (default: here)

SERVER is a configured [[mcp.servers]] name, an http(s) URL (Streamable HTTP), or a stdio command line
in quotes, e.g. yagent mcp tools "npx -y @modelcontextprotocol/server-everything".
Exit codes: 0 ok, 1 a server or tool error, 2 a configuration or usage error, 130 cancelled.
`;

const fail = (io: Streams, code: ExitCode, what: string, fix: string): ExitCode => {
  io.stderr(`yagent mcp: ${what}\n  fix:   ${fix}\n`);
  return code;
};

function statusLine(s: ServerStatus): string {
  const mark = s.state === 'ready' ? 'ok  ' : 'FAIL';
  return `${mark} ${s.name.padEnd(16)} ${s.transport.padEnd(5)} ${String(s.tools).padStart(3)} tools${s.error !== undefined ? `  ${s.error}` : ''}`;
}

/** task-only tools are listed (the server has them) but agents never get them: plain tools/call cannot run them */
const mark = (t: McpToolInfo): string => (t.taskOnly ? 'task-only' : t.readOnly ? 'read-only' : t.destructive ? 'destructive' : 'write');

async function withHub<T>(specs: McpServerSpec[], fn: (hub: McpHub, quit: () => void) => Promise<T>): Promise<T> {
  const hub = new McpHub(specs, { tasks: createTaskGroup(), maxRestarts: 0 });
  let now = false;
  try {
    await hub.start();
    return await fn(hub, () => (now = true));
  } finally {
    await hub.close({ now });
  }
}

/** Ctrl-C (or SIGTERM) during a call cancels it on the server (notifications/cancelled); a second one quits at once. */
async function cancellable<T>(run: (signal: AbortSignal) => Promise<T>): Promise<{ value: T; cancelled: boolean }> {
  const ctl = new AbortController();
  const onSignal = (): void => {
    off();
    ctl.abort();
  };
  const off = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return { value: await run(ctl.signal), cancelled: ctl.signal.aborted };
  } finally {
    off();
  }
}

function parseJsonArgs(text: string | undefined): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(text ?? '{}');
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return `JSON_ARGS is ${Array.isArray(v) ? 'an array' : `a ${v === null ? 'null' : typeof v}`}, not one JSON object`;
    return v as Record<string, unknown>;
  } catch (err) {
    return `JSON_ARGS is not valid JSON (${(err as Error).message})`;
  }
}

export async function runMcp(argv: string[], io: Streams): Promise<ExitCode> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' }, workspace: { type: 'string', short: 'w' } }, allowPositionals: true, strict: true });
  } catch (err) {
    io.stderr(`yagent mcp: ${(err as Error).message}\n${MCP_USAGE}`);
    return EXIT.config;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help === true || command === 'help') {
    io.stdout(MCP_USAGE);
    return EXIT.ok;
  }
  if (command === undefined) {
    io.stderr(MCP_USAGE);
    return EXIT.config;
  }
  if (command === 'serve-code') {
    if (rest.length > 0) return fail(io, EXIT.config, `serve-code takes no argument "${rest[0] ?? ''}"`, 'yagent mcp serve-code [--workspace DIR] (default: the current directory)');
    return (await (await import('./mcp-serve-code.js')).serveCode(parsed.values.workspace, io.stderr)) as ExitCode;
  }
  if (!['list', 'tools', 'call'].includes(command)) {
    io.stderr(`yagent mcp: unknown command "${command}"${command.length > 2 ? `; did you mean "${closest(command, ['list', 'tools', 'call', 'serve-code'])}"?` : ''}\n${MCP_USAGE}`);
    return EXIT.config;
  }
  const configPath = parsed.values.config ?? defaultConfigPath();
  let servers: McpServerSpec[];
  try {
    // no provider validation: MCP diagnostics need no model (like setup, they must work before one is configured)
    const { config } = await loadConfig({ validate: false, ...(parsed.values.config !== undefined ? { configPath: parsed.values.config } : {}) });
    servers = config.mcp.servers;
  } catch (err) {
    if (!isConfigError(err)) throw err;
    io.stderr(`${err.lines().join('\n')}\n`);
    return EXIT.config;
  }
  if (command === 'list') {
    if (servers.length === 0) {
      io.stdout(`no MCP servers configured in ${configPath}\n  add one: a [[mcp.servers]] table (name + command or url), or try a server directly: yagent mcp tools "npx -y @modelcontextprotocol/server-everything"\n`);
      return EXIT.ok;
    }
    return withHub(servers, async (hub) => {
      const all = hub.status();
      io.stdout(`${all.map(statusLine).join('\n')}\n`);
      return all.every((s) => s.state === 'ready') ? EXIT.ok : EXIT.error;
    });
  }
  const [server, tool, json] = rest;
  if (server === undefined || server === '') return fail(io, EXIT.config, `${command} needs a SERVER`, `yagent mcp ${command} SERVER${command === 'call' ? ' TOOL [JSON_ARGS]' : ''}: ${servers.length > 0 ? `one of ${servers.map((s) => s.name).join(', ')}, ` : ''}an http(s) URL, or a command line in quotes`);
  const target = resolveTarget(server, servers, configPath);
  if (!target.ok) return fail(io, EXIT.config, target.message, target.fix);
  let args: Record<string, unknown> = {};
  if (command === 'call') {
    if (tool === undefined || tool === '') return fail(io, EXIT.config, 'call needs a TOOL', `yagent mcp call ${server} TOOL [JSON_ARGS]; yagent mcp tools ${server} lists them`);
    const parsedArgs = parseJsonArgs(json);
    if (typeof parsedArgs === 'string') return fail(io, EXIT.config, parsedArgs, `quote it for the shell, e.g. yagent mcp call ${server} ${tool} '{"message":"hi"}'`);
    args = parsedArgs;
  }
  const { spec, label } = target;
  return withHub([spec], async (hub, quit) => {
    const [st] = hub.status();
    if (st === undefined || st.state !== 'ready') {
      const fix = target.configured ? `check [[mcp.servers]] "${spec.name}" in ${configPath}` : spec.transport === 'http' ? 'check that an MCP server (Streamable HTTP) is running at that URL' : 'check that the command starts an MCP server on stdio (run in a shell, it waits for input)';
      return fail(io, EXIT.error, `cannot connect to MCP server ${label}: ${st?.error ?? 'unknown state'}`, fix);
    }
    const tools = hub.tools();
    if (command === 'tools') {
      const width = Math.min(40, Math.max(...tools.map((t) => t.name.length), 4));
      const rows = tools.map((t) => `${t.name.padEnd(width)} ${mark(t).padEnd(11)} ${argsHint(t.inputSchema)}  ${(t.description.split('\n')[0] ?? '').slice(0, 100)}`);
      io.stdout(`${rows.join('\n')}\n`);
      return EXIT.ok;
    }
    const info = tools.find((t) => t.name === tool);
    if (info === undefined) {
      const near = tools.length > 0 ? closest(tool ?? '', tools.map((t) => t.name)) : '';
      return fail(io, EXIT.config, `MCP server ${label} has no tool "${tool ?? ''}"${near !== '' ? `; did you mean "${near}"?` : ''}`, `yagent mcp tools ${server.includes(' ') ? `"${server}"` : server} lists its tools`);
    }
    const { value: r, cancelled } = await cancellable((signal) => hub.call(spec.name, info.name, args, signal));
    if (cancelled) {
      quit();
      io.stderr('yagent mcp: cancelled (the server was sent notifications/cancelled)\n');
      return EXIT.cancelled;
    }
    if (!r.isError) {
      io.stdout(`${r.text}\n`);
      return EXIT.ok;
    }
    // the server's own words, then what it expects when it rejected the arguments
    io.stderr(`yagent mcp: ${info.name} failed: ${r.text}\n`);
    if (/-32602|invalid arg|validation/i.test(r.text)) io.stderr(`  fix:   ${info.name} takes ${argsHint(info.inputSchema)}\n`);
    return EXIT.error;
  });
}
