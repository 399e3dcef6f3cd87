// A transparent HTTP relay in front of a real Streamable HTTP MCP server (test fixture): records every request's
// headers and JSON body and streams the answers back as they come (SSE included). `lateInitialized` answers the
// client's notifications/initialized itself (202) and forwards it only once the first tools/list has been answered
// and the client's GET stream is open, so a tool the server registers on initialisation is announced by a
// list_changed on that stream while the connection is ready.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  headers: IncomingHttpHeaders;
  body: { id?: number; method?: string; params?: Record<string, unknown> } | null;
  /** The upstream's status once its answer began (an SSE answer streams on after it). */
  status?: number;
}

export interface HttpTap {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function httpTap(upstream: string, opts: { lateInitialized?: boolean } = {}): Promise<HttpTap> {
  const target = new URL(upstream);
  const requests: Recorded[] = [];
  let listAnswered = false;
  let streamOpen = false;
  let heldInitialized: (() => void) | null = null;
  const release = (): void => {
    if (!listAnswered || !streamOpen || heldInitialized === null) return;
    const go = heldInitialized;
    heldInitialized = null;
    go();
  };
  // an upstream that dies or refuses cuts the client's connection too: the client sees what a dead server looks like
  const forward = (method: string, headers: IncomingHttpHeaders, body: Buffer, onStatus: (status: number, h: IncomingHttpHeaders) => void, onData: (d: Buffer) => void, onEnd: () => void, onFail: () => void): void => {
    const up = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method, headers: { ...headers, host: target.host } }, (res) => {
      onStatus(res.statusCode ?? 502, res.headers);
      res.on('data', onData);
      res.on('end', onEnd);
      res.on('aborted', onFail);
      res.on('error', onFail);
    });
    up.on('error', onFail);
    up.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Recorded['body'] = null;
      try {
        body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Recorded['body']) : null;
      } catch {
        body = null;
      }
      const rec: Recorded = { method: req.method ?? '', headers: req.headers, body };
      requests.push(rec);
      if (opts.lateInitialized === true && body?.method === 'notifications/initialized' && !listAnswered) {
        res.writeHead(202).end();
        heldInitialized = () => forward('POST', req.headers, raw, () => undefined, () => undefined, () => undefined, () => undefined);
        release();
        return;
      }
      forward(
        req.method ?? 'GET',
        req.headers,
        raw,
        (status, h) => {
          rec.status = status;
          res.writeHead(status, h);
          if (req.method === 'GET' && status === 200) {
            streamOpen = true;
            release();
          }
        },
        (d) => res.write(d),
        () => {
          res.end();
          if (body?.method === 'tools/list' && !listAnswered) {
            listAnswered = true;
            release();
          }
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
