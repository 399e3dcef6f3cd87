// Keep-alive sockets a server has already given up: llama-server announces `Keep-Alive: timeout=5, max=100` yet closes
// the connection after every streamed answer, so the pooled socket the next step takes fails with ECONNRESET /
// "socket hang up" before any byte of an answer (issue 23: 168 backoff retries in 704 calls). Node's documented
// answer (http `request.reusedSocket`): send such a request again at once, on a socket that is not the pooled one.
// Node itself already honours `Connection: close` and shortens the pool's idle time to a server's Keep-Alive hint.
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';

/** What a reused socket the server closed looks like to the request on it. */
const RESET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export class SocketReuse {
  /** Sockets whose latest answer was a stream (an event stream or an unsized chunked body). */
  private readonly streamed = new WeakSet<Socket>();
  /** Origins seen closing a socket after a streamed answer: their streamed answers' sockets are not pooled. */
  private readonly closesAfterStream = new Set<string>();

  /** An answer's head arrived on `res.socket`. */
  onResponse(url: URL, res: IncomingMessage): void {
    const socket = res.socket;
    if (socket === null) return;
    const isStream = /event-stream/i.test(res.headers['content-type'] ?? '') || (res.headers['content-length'] === undefined && res.headers['transfer-encoding'] !== undefined);
    if (!isStream) {
      this.streamed.delete(socket);
      return;
    }
    this.streamed.add(socket);
    // the server will close it: dropping it when the answer ends spares the next request a doomed write
    if (this.closesAfterStream.has(url.origin)) res.once('end', () => socket.destroy());
  }

  /** Whether a request that failed before any answer should go again on a fresh socket: it was on a reused one that
   *  the server had closed. Learns the origin's habit and drops the origin's other idle sockets (as stale), so the
   *  request sent next, in the same tick, gets a new connection from the pool. */
  resendAfter(req: ClientRequest, err: unknown, url: URL, agent: Agent): boolean {
    const code = (err as { code?: unknown } | null)?.code;
    if (!req.reusedSocket || typeof code !== 'string' || !RESET.has(code)) return false;
    if (req.socket !== null && this.streamed.has(req.socket)) this.closesAfterStream.add(url.origin);
    const name = agent.getName(urlToHttpOptions(url));
    for (const s of agent.freeSockets[name] ?? []) s.destroy();
    return true;
  }
}
