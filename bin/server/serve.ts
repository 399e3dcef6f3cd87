// `yagent serve`: a long-running supervisor; control server on loopback, discovery file (via the store) removed on exit.
import type { Host } from '../host/types.js';
import { CliError, EXIT, type ExitCode } from '../cli/exit-codes.js';
import type { Streams } from '../cli/output.js';
import { startControlServer } from './control-server.js';
import { pruneDeadDiscoveries, removeDiscovery, writeDiscovery } from './discovery.js';

export interface ServeOptions {
  port: number;
  version: string;
  io: Streams;
  forceQuit: boolean;
  /** Grace for running tasks when the server stops. */
  drainMs?: number;
}

/** A port that cannot be bound is a three-line error, not a stack trace. */
function listenError(err: unknown, port: number): unknown {
  const code = (err as { code?: unknown }).code;
  const where = `yagent serve --port ${port} (127.0.0.1:${port})`;
  if (code === 'EADDRINUSE') return new CliError(`port ${port} is already in use`, EXIT.error, where, 'stop the process using it, pick another --port, or omit --port for any free port');
  if (code === 'EACCES') return new CliError(`no permission to listen on port ${port}`, EXIT.error, where, 'pick a port from 1024 to 65535, or omit --port for any free port');
  return err;
}

export async function runServe(host: Host, opts: ServeOptions): Promise<ExitCode> {
  let exit: (code: ExitCode) => void = () => undefined;
  const stopped = new Promise<ExitCode>((resolve) => (exit = resolve));
  const server = await startControlServer({ host, version: opts.version, port: opts.port, requestExit: () => exit(EXIT.ok) }).catch((err: unknown) => {
    throw listenError(err, opts.port);
  });
  let signals = 0;
  const onSignal = (): void => {
    signals += 1;
    // quitting at once leaves the file behind (no async work here); readers skip files of dead pids
    if (opts.forceQuit || signals > 1) process.exit(EXIT.cancelled);
    opts.io.stderr('yagent serve: draining running tasks (Ctrl-C again to quit at once)…\n');
    exit(EXIT.ok);
  };
  // handlers go in before the discovery file exists: a client that sees the file may signal at once
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let file: string;
  try {
    // after the store is ready (writeRunFile waits for it): the store is the only writer under the data root
    file = await writeDiscovery(host, { version: opts.version, pid: process.pid, address: server.address, token: server.token, startedAt: Date.now() });
  } catch (err) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server.close();
    throw err;
  }
  try {
    // stale files of force-quit supervisors go through the store; a failure here must not stop the server
    await pruneDeadDiscoveries(host);
  } catch (err) {
    opts.io.stderr(`yagent serve: could not prune stale discovery files: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  opts.io.stderr(`yagent serve: supervisor pid ${process.pid} listening on ${server.address}\n  discovery: ${file} (0600; holds the bearer token)\n`);
  try {
    const code = await stopped;
    for (const t of host.tasks()) if (t.state === 'running' || t.state === 'paused') host.cancel(t.taskId);
    const still = await host.drain(opts.drainMs ?? 10_000);
    if (still.length > 0) opts.io.stderr(`yagent serve: still running after the drain: ${still.join(', ')}\n`);
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server.close();
    // awaited before the caller shuts the runtime (and the store) down
    await removeDiscovery(host, process.pid);
  }
}
