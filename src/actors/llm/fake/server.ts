// The loopback fake model server: both wire formats, scripts keyed by agent identity, faults, recording.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { anthropicErrorBody, anthropicStreamEvents } from './anthropic-wire.js';
import { openaiErrorBody, openaiJsonBody, openaiStreamEvents } from './openai-wire.js';
import { AGENT_HEADER } from '../engines/common.js';
import type { FakeStep, RecordedRequest, WireFormat } from './script.js';
import { closesAfterStream, kvFullFrame, overflowAnswer, unparsableHistoryAnswer, unparsableHistoryArguments, type ServerFlavour } from './flavours.js';
import type { Socket } from 'node:net';
import { infoAnswer } from './window-answers.js';
import { llamaCallId, llamaErrorBody, llamaHeaders, llamaJsonBody, llamaStreamEvents } from './llama-wire.js';

export interface FakeProviderOptions {
  /** Delay before each SSE event; 0 (the default) is the zero-latency mode used by benchmarks. */
  chunkDelayMs?: number;
  model?: string;
  /** Answers agents that have no script (or ran out of it); without it such a request is a 400. */
  fallback?: FakeStep;
  /** The real server whose habits it copies (flavours.ts); default 'openai'. */
  flavour?: ServerFlavour;
  /** The window the server says it has where it says it (window-answers.ts); undefined = it does not say. */
  window?: number;
  /** What `GET /models` lists (as OpenAI-compatible servers do); default: `model`. */
  models?: string[];
  /** The key the server was started with (llama-server --api-key): see `FakeProvider.apiKey`. */
  apiKey?: string;
}

export class FakeProvider {
  readonly requests: RecordedRequest[] = [];
  /** Errors thrown by a request handler (each also answered 500 or reset): tests can assert there are none. */
  readonly handlerErrors: unknown[] = [];
  /** Handlers still running: close() waits for them, so none outlives the server. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly scripts = new Map<string, FakeStep[]>();
  private readonly cursors = new Map<string, number>();
  private seq = 0;
  /** The server whose habits it copies; may change between requests. */
  flavour: ServerFlavour;
  /** Requests that arrived on a connection the server had already given up (closesAfterStream): reset unanswered. */
  staleSocketResets = 0;
  /** Connections a streamed answer finished on, for a flavour that closes them after it. */
  private readonly stale = new WeakSet<Socket>();
  private readonly connections = new WeakMap<Socket, number>();
  private connectionSeq = 0;
  /** The window this server reports where its flavour reports one (undefined: it says nothing). */
  window: number | undefined;
  /** Ollama: num_ctx in the model's Modelfile (`/api/show`). */
  ollamaNumCtx: number | undefined;
  /** The info requests (method and path) clients made besides the chat endpoints: a window probe, a model list. */
  readonly infoRequests: string[] = [];
  /** What a `crash_worker` fault calls with the asking agent's identity (test-only: scripted CLI runs set it). */
  onCrashWorker: ((agent: string) => number) | undefined;
  /** The key the server was started with (llama-server --api-key): every request but GET /health without
   *  `Authorization: Bearer <key>` is answered 401, /props and /v1/models included (seen from llama-server b11669). */
  apiKey: string | undefined;
  /** Info answers (the window probe's) wait for this: a test holds them to see what does not wait for them. */
  infoGate: Promise<unknown> = Promise.resolve();
  /** The server's own tokenizer (a real server counts the prompt itself, often more than the client): when set, it is
   *  every answer's prompt_tokens (unless the reply says otherwise), and with a `window` a request over it gets the
   *  flavour's overflow answer (n_prompt_tokens, n_ctx) without using a script step, as llama-server -c does. */
  promptTokens: ((req: RecordedRequest) => number) | undefined;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly opts: FakeProviderOptions,
  ) {
    this.flavour = opts.flavour ?? 'openai';
    this.window = opts.window;
    this.apiKey = opts.apiKey;
  }

  static async start(opts: FakeProviderOptions = {}): Promise<FakeProvider> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const fake = new FakeProvider(server, `http://127.0.0.1:${port}`, opts);
    server.on('request', (req, res) => fake.track(req, res));
    return fake;
  }

  /** Base URL for the openai SDK (it appends /chat/completions). */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }
  /** Base URL for the anthropic SDK (it appends /v1/messages). */
  get anthropicBaseUrl(): string {
    return this.url;
  }

  /** Appends steps to an agent's script; each request from that agent consumes the next one. */
  script(agent: string, ...steps: FakeStep[]): this {
    this.scripts.set(agent, [...(this.scripts.get(agent) ?? []), ...steps]);
    return this;
  }

  requestsFor(agent: string): RecordedRequest[] {
    return this.requests.filter((r) => r.agent === agent);
  }

  /** Requests in flight right now. */
  get pending(): number {
    return this.inFlight.size;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    // closed sockets end every handler (each checks `closed` between events); wait for them all
    await Promise.allSettled([...this.inFlight]);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** node:http cannot await a request callback: the handler is kept in `inFlight` and its error recorded. */
  private track(req: IncomingMessage, res: ServerResponse): void {
    // the close after a streamed answer, made deterministic: the server drops the connection when the next request
    // arrives on it (the client sees a reset before any byte, as when the FIN crosses its next request)
    if (this.stale.has(req.socket)) {
      this.staleSocketResets++;
      req.socket.destroy();
      return;
    }
    const done: Promise<void> = this.handle(req, res)
      .catch((err: unknown) => {
        this.handlerErrors.push(err);
        if (!res.headersSent) res.writeHead(500).end(String(err));
        else res.destroy();
      })
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const format: WireFormat | null = path.endsWith('/chat/completions')
      ? 'openai'
      : path.endsWith('/messages')
        ? 'anthropic'
        : null;
    const raw = await readBody(req);
    if (this.apiKey !== undefined && path !== '/health' && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      const body = this.flavour === 'llama.cpp' ? llamaErrorBody(401, 'Invalid API Key') : openaiErrorBody(401, 'Invalid API Key', 'invalid_api_key');
      res.writeHead(401, this.errorHeaders('openai')).end(JSON.stringify(body));
      return;
    }
    if (req.method === 'GET' && path.endsWith('/models') && this.opts.models !== undefined) {
      const ids = this.opts.models;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', owned_by: 'fake' })) }));
      return;
    }
    const method = req.method ?? 'GET';
    if (format === null || method !== 'POST') {
      this.infoRequests.push(`${method} ${path}`);
      await this.infoGate;
      const info = infoAnswer(this.flavour, method, path, this.opts.model ?? 'fake-model', { window: this.window, ollamaNumCtx: this.ollamaNumCtx });
      if (info !== null) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(info));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      this.sendError(res, format, 400, 'request body is not JSON');
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const agent = headers[AGENT_HEADER] ?? '';
    const stepIndex = this.cursors.get(agent) ?? 0;
    this.cursors.set(agent, stepIndex + 1);
    let connection = this.connections.get(req.socket);
    if (connection === undefined) this.connections.set(req.socket, (connection = ++this.connectionSeq));
    const record: RecordedRequest = { format, path, agent, headers, body, raw, stream: body['stream'] === true, cancelled: false, step: stepIndex, connection };
    this.requests.push(record);
    let closed = false;
    res.on('close', () => {
      if (!res.writableFinished) record.cancelled = true;
      closed = true;
    });
    const bad = format === 'openai' ? unparsableHistoryArguments(body) : null;
    const refused = bad !== null ? unparsableHistoryAnswer(this.flavour, bad) : null;
    if (refused !== null) {
      // the server fails before generating: no script step is used
      this.cursors.set(agent, stepIndex);
      res.writeHead(refused.status, this.errorHeaders(format)).end(JSON.stringify(refused.body));
      return;
    }
    const counted = this.promptTokens?.(record);
    if (counted !== undefined && this.window !== undefined && counted > this.window) {
      this.cursors.set(agent, stepIndex);
      const answer = overflowAnswer(this.flavour, format, counted, this.window);
      res.writeHead(answer.status, this.errorHeaders(format)).end(JSON.stringify(answer.body));
      return;
    }
    const step = this.scripts.get(agent)?.[stepIndex] ?? this.opts.fallback;
    if (step === undefined) {
      this.sendError(res, format, 400, `fake provider: no script step ${stepIndex} for agent "${agent}"`);
      return;
    }
    const scripted = typeof step === 'function' ? await step(record) : step;
    const reply = counted !== undefined && scripted.usage?.input === undefined ? { ...scripted, usage: { ...scripted.usage, input: counted } } : scripted;
    const fault = reply.fault;
    if (fault?.kind === 'status') {
      const extra: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
      this.sendError(res, format, fault.status, fault.message ?? `fake ${fault.status}`, extra, fault.code);
      return;
    }
    if (fault?.kind === 'overflow') {
      const answer = overflowAnswer(this.flavour, format, fault.promptTokens, fault.window);
      res.writeHead(answer.status, this.errorHeaders(format)).end(JSON.stringify(answer.body));
      return;
    }
    // accepted, never answered: the client's idle timeout or cancellation closes the socket
    if (fault?.kind === 'silent') return;
    if (fault?.kind === 'crash_worker') {
      // the worker's end closes this request; nothing to crash is said at once (a test would otherwise hang)
      const ended = this.onCrashWorker?.(agent) ?? 0;
      if (ended === 0) this.sendError(res, format, 500, `fake provider: crash_worker ended no worker of "${agent}"`);
      return;
    }
    const promptText = JSON.stringify(body['messages'] ?? '') + JSON.stringify(body['system'] ?? '');
    const llama = format === 'openai' && this.flavour === 'llama.cpp';
    const seq = ++this.seq;
    const id = llama ? `chatcmpl-${llamaCallId(String(seq))}` : `${format === 'openai' ? 'chatcmpl' : 'msg'}_fake${seq}`;
    // llama-server names the model it serves, whatever the request said
    const model = typeof body['model'] === 'string' && !llama ? body['model'] : (this.opts.model ?? 'fake-model');
    const ids = { id, created: 1_700_000_000, model };
    if (!record.stream) {
      const json = format === 'openai' ? (llama ? llamaJsonBody(reply, ids, promptText) : openaiJsonBody(reply, ids, promptText)) : null;
      if (json === null) {
        this.sendError(res, format, 400, 'fake provider: anthropic non-streaming replies are not scripted');
        return;
      }
      res.writeHead(200, llama ? llamaHeaders('json') : { 'content-type': 'application/json' }).end(JSON.stringify(json));
      return;
    }
    const streamOpts = body['stream_options'] as { include_usage?: boolean } | undefined;
    const includeUsage = streamOpts?.include_usage === true;
    const events =
      format === 'openai'
        ? (llama ? llamaStreamEvents : openaiStreamEvents)(reply, ids, promptText, includeUsage)
        : anthropicStreamEvents(reply, id, model, promptText);
    const closes = closesAfterStream(this.flavour);
    res.writeHead(
      200,
      llama
        ? llamaHeaders('stream')
        : {
            'content-type': format === 'openai' ? 'text/event-stream; charset=utf-8' : 'text/event-stream',
            'cache-control': 'no-cache',
            connection: 'keep-alive',
            ...(closes ? { 'keep-alive': 'timeout=5, max=100' } : {}),
          },
    );
    if (closes) res.on('finish', () => this.stale.add(req.socket));
    const gap = reply.chunkDelayMs ?? this.opts.chunkDelayMs ?? 0;
    for (let i = 0; i < events.length; i++) {
      if (fault !== undefined && 'afterEvents' in fault && i === fault.afterEvents) {
        if (fault.kind === 'reset') res.destroy();
        if (fault.kind === 'kv_full') res.end(kvFullFrame());
        // a stall writes nothing more; the client's timeout or cancellation closes the socket
        return;
      }
      if (fault?.kind === 'malformed' && i === 1) {
        res.write('data: {"choices":[{"delta":{"content":"oops"\n\n');
        res.end();
        return;
      }
      if (gap > 0) await delay(gap);
      if (closed) return;
      res.write(events[i]);
    }
    res.end();
  }

  private sendError(res: ServerResponse, format: WireFormat, status: number, message: string, extra: Record<string, string> = {}, code?: string): void {
    const llama = format === 'openai' && this.flavour === 'llama.cpp';
    const body = llama ? llamaErrorBody(status, message) : format === 'openai' ? openaiErrorBody(status, message, code) : anthropicErrorBody(status, message);
    res.writeHead(status, { ...this.errorHeaders(format), ...extra }).end(JSON.stringify(body));
  }

  /** An error answer's headers: llama-server closes the connection after one. */
  private errorHeaders(format: WireFormat): Record<string, string> {
    return format === 'openai' && this.flavour === 'llama.cpp' ? llamaHeaders('error') : { 'content-type': 'application/json' };
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}
