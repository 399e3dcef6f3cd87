// A real redis-server for the queue tests: a free loopback port, its own temp dir (append-only file, so a restart
// keeps the queue), started and stopped on its own output and exit events.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const redisFound = spawnSync('redis-server', ['--version']).status === 0;

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
  /** Stops it (SIGTERM: the append-only file is flushed) and starts it again on the same port and dir. */
  restart(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === 'object' && addr !== null ? addr.port : 0));
    });
  });
}

function launch(port: number, dir: string, password: string | undefined): Promise<ChildProcess> {
  const auth = password !== undefined ? ['--requirepass', password] : [];
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--protected-mode', 'yes', ...auth], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** `password`: the server requires it (AUTH); `url` carries none. */
export async function startRedis(base: string, password?: string): Promise<RedisServer> {
  const dir = join(base, 'redis');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let child = await launch(port, dir, password);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop: () => stopChild(child),
    restart: async () => {
      await stopChild(child);
      child = await launch(port, dir, password);
    },
  };
}

/** Resolves when `child`'s stderr (all of it so far) matches `re`; rejects if it exits first. */
export function stderrMatch(child: ChildProcess, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let err = '';
    const onData = (d: Buffer): void => {
      err += d.toString();
      const m = re.exec(err);
      if (m) {
        child.stderr?.off('data', onData);
        resolve(m[0]);
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited (${code}) before ${re}: ${err.slice(-800)}`)));
  });
}
