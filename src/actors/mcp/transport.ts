// Builds the SDK transport for one configured server: stdio (a child process) or Streamable HTTP.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerSpec } from '../../runtime/config/mcp-servers.js';
import { findCommand } from '../../runtime/find-command.js';
import { withOwnerMark } from '../../runtime/owner-mark.js';

export interface BuiltTransport {
  transport: Transport;
  /** Last lines the server wrote on stderr (stdio only): the diagnosis when it fails to start. */
  stderrTail(): string;
  /** The stdio child's pid once started (tests and the process registry). */
  pid(): number | null;
  /** True when the child leads its own process group (pgid = pid): the group can be killed whole. */
  grouped: boolean;
  /** Settles when the stdio child has exited (resolved at once for HTTP). */
  exited(): Promise<unknown>;
}

/** The server leads its own process group, so `npx`-style launchers and their grandchildren die together (the SDK
 *  only signals its direct child). perl's setpgrp makes the group inside our session; `setsid` (the fallback) makes a
 *  new session too, which Linux schedules as its own autogroup: on a busy machine every call to such a server took
 *  2-3x the time of one in our session (bench mcp, measured side by side). Neither present: no grouping. */
const PERL = ['/usr/bin/perl', '/bin/perl'].find((p) => existsSync(p));
const SETSID = ['/usr/bin/setsid', '/bin/setsid'].find((p) => existsSync(p));
/** perl: become a process group leader, then be the server (same pid, so pgid = pid as with setsid). */
const PGRP_EXEC = 'setpgrp(0, 0) or die "setpgrp: $!\\n"; exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\\n"';

/** The command line that starts `command args` as the leader of its own process group (null: not possible here). */
export function groupedLaunch(command: string, args: readonly string[]): { command: string; args: string[] } | null {
  if (PERL !== undefined) return { command: PERL, args: ['-e', PGRP_EXEC, command, ...args] };
  if (SETSID !== undefined) return { command: SETSID, args: [command, ...args] };
  return null;
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
    return { transport, stderrTail: () => '', pid: () => null, grouped: false, exited: () => Promise.resolve() };
  }
  // the child's environment is built (the SDK's safe default set + the server's own vars), never our whole env
  // the owner mark: a server whose yagent died by kill -9 is ended by the watchdog or the next start's sweep
  const childEnv = withOwnerMark({ ...getDefaultEnvironment(), ...spec.env });
  // a missing command is one clear reason here, not a closed connection after setsid could not run it
  if (findCommand(spec.command ?? '', childEnv['PATH'], spec.cwd) === null) {
    throw new Error(`command "${spec.command ?? ''}" not found${(spec.command ?? '').includes('/') ? ' (or not executable)' : ' on PATH'}`);
  }
  const launch = groupedLaunch(spec.command ?? '', spec.args);
  const stdio = new StdioClientTransport({
    command: launch?.command ?? spec.command ?? '',
    args: launch?.args ?? spec.args,
    env: childEnv,
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    stderr: 'pipe',
  });
  let tail = '';
  stdio.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  // the SDK keeps its ChildProcess private; its exit is what the process-group registry waits for
  const child = (): ChildProcess | undefined => (stdio as unknown as { _process?: ChildProcess })._process;
  return {
    transport: stdio,
    stderrTail: () => tail.trim(),
    pid: () => stdio.pid,
    grouped: launch !== null,
    exited: () => {
      const c = child();
      return c === undefined || c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : once(c, 'exit');
    },
  };
}
