// Real MCP servers from npm (pinned dev dependencies) as server specs, plus a Streamable HTTP launcher.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import type { McpServerSpec } from '../../src/runtime/config/mcp-servers.js';

const ROOT = resolve(import.meta.dirname, '../..');
export const EVERYTHING = resolve(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const TAP = resolve(ROOT, 'test/mcp/stdio-tap.mjs');
export const FILESYSTEM = resolve(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

export function spec(over: Partial<McpServerSpec> & Pick<McpServerSpec, 'name'>): McpServerSpec {
  return {
    transport: 'stdio',
    args: [],
    env: {},
    headers: {},
    agents: ['coding', 'repo', 'devops'],
    allowWrite: false,
    startupTimeoutMs: 20_000,
    toolTimeoutMs: 20_000,
    ...over,
  };
}

export const everythingStdio = (name = 'every', over: Partial<McpServerSpec> = {}): McpServerSpec =>
  spec({ name, command: process.execPath, args: [EVERYTHING, 'stdio'], ...over });

/** server-everything behind the stdio tap (test/mcp/stdio-tap.mjs): client → server messages logged to `log`. */
export const tappedEverything = (log: string, mode: 'log' | 'early' | 'late', name = 'every', over: Partial<McpServerSpec> = {}): McpServerSpec =>
  spec({ name, command: process.execPath, args: [TAP, log, mode, '--', process.execPath, EVERYTHING, 'stdio'], ...over });

/** The JSON-RPC messages the tap logged, in order. */
export function tapLog(log: string): { id?: number; method?: string; params?: Record<string, unknown> }[] {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id?: number; method?: string }) : [];
}

export const filesystemStdio = (dir: string, name = 'fs', over: Partial<McpServerSpec> = {}): McpServerSpec =>
  spec({ name, command: process.execPath, args: [FILESYSTEM, dir], ...over });

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? res(addr.port) : rej(new Error('no port'))));
    });
  });
}

/** server-everything over Streamable HTTP on a loopback port (a given one: a restart); resolves once it listens. */
export async function everythingHttp(at?: number): Promise<{ url: string; port: number; child: ChildProcess; stop(): void }> {
  const port = at ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((res, rej) => {
    let seen = '';
    const onData = (d: Buffer): void => {
      seen += d.toString();
      if (/listening on port/i.test(seen)) res();
    };
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.once('exit', (code) => rej(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, port, child, stop: () => child.kill('SIGKILL') };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
