// The control server: node:http on 127.0.0.1 only, every request needs the bearer token.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Host } from '../host/types.js';
import { EventLog } from './event-log.js';
import { authorized, HttpError, loopbackHost, sendJson } from './http-util.js';
import { route } from './routes.js';

export interface ControlServer {
  address: string;
  token: string;
  log: EventLog;
  close(): Promise<void>;
}

export interface ControlServerOptions {
  host: Host;
  version: string;
  port?: number;
  token?: string;
  requestExit: () => void;
}

export async function startControlServer(opts: ControlServerOptions): Promise<ControlServer> {
  const token = opts.token ?? randomBytes(32).toString('hex');
  const log = new EventLog();
  const unsubscribe = opts.host.subscribe({}, (env) => log.append(env));
  const ctx = { host: opts.host, log, version: opts.version, requestExit: opts.requestExit };
  const inflight = new Set<Promise<void>>();
  const server: Server = createServer((req, res) => {
    if (!loopbackHost(req)) return sendJson(res, 403, { error: 'loopback clients only' });
    if (!authorized(req, token)) return sendJson(res, 401, { error: 'missing or wrong bearer token (see the discovery file under ~/.yagent/run/)' });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // tracked, not detached: close() waits for every handler still running (SSE ones end with their sockets)
    const handling: Promise<void> = route(ctx, req, res, url)
      .catch((err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        if (!res.headersSent) sendJson(res, status, { error: (err as Error).message });
        else res.end();
      })
      .finally(() => inflight.delete(handling));
    inflight.add(handling);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    token,
    log,
    close: async () => {
      unsubscribe();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inflight]);
    },
  };
}
