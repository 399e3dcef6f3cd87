// McpHub: owns one SDK Client per configured server — parallel connect with a per-server timeout, the tool
// catalogue (refreshed on list_changed, replayed when it arrived before ready), calls with cancellation and
// progress-reset timeouts, and restart of a server whose connection dies (bounded intensity).
// sdk-zod.js first and sdk-zod-end.js last: the SDK's schemas are built with zod's JIT (sdk-zod.ts)
import './sdk-zod.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Clock, TaskGroup } from '../../runtime/actor.js';
import { realClock, sleep } from '../../runtime/clock.js';
import type { McpServerSpec } from '../../runtime/config/mcp-servers.js';
import { groupAlive, trackProcessGroup } from '../../runtime/process-groups.js';
import { buildTransport, type BuiltTransport } from './transport.js';
import { renderCallResult, type RenderedResult } from './result.js';
import type { CallSignal } from './cancel.js';
import './sdk-zod-end.js';

export type ServerState = 'connecting' | 'ready' | 'failed' | 'restarting' | 'closed';

export interface McpToolInfo {
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  destructive: boolean;
  /** The server's `allow_write`: non-destructive writes run without asking; destructive ones honour project grants. */
  allowWrite: boolean;
  /** `execution.taskSupport: "required"`: only the SDK's experimental task API can run it, never a plain tools/call. */
  taskOnly: boolean;
}

export interface ServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: ServerState;
  tools: number;
  error?: string;
  pid: number | null;
  restarts: number;
}

export interface HubOptions {
  tasks: TaskGroup;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Every state change (the actor turns it into an `mcp_server_state` event). */
  onState?: (s: ServerStatus) => void;
  /** Restarts allowed within `restartWindowMs` before a server stays failed. */
  maxRestarts?: number;
  restartWindowMs?: number;
  restartBackoffMs?: number;
}

interface Conn {
  spec: McpServerSpec;
  state: ServerState;
  client: Client | null;
  built: BuiltTransport | null;
  tools: McpToolInfo[];
  error?: string;
  /** A list_changed that arrived before the connection settled: replayed once ready (pitfall 45). */
  listChangedPending: boolean;
  restartsAt: number[];
  closing: boolean;
  /** The stdio server's process group, registered so that no server outlives its owner (worker or CLI). */
  group?: { pgid: number; exited: Promise<unknown>; release: () => void };
  /** HTTP: the calls in flight, failed at once when the server is found gone (no process exit tells the SDK). */
  inflight: Set<AbortController>;
  probing: boolean;
  /** HTTP: a reconnect of a failed server in progress, and when the last one began. */
  reviving: Promise<void> | null;
  revivedAt: number;
}

const CLIENT_INFO = { name: 'yagent', version: '0.1.0' };
/** Progress only resets the call's timeout (resetTimeoutOnProgress): one handler for every call. */
const noProgress = (): void => undefined;
/** A failed HTTP server is tried again by an agent's start at most this often (a call always tries). */
const REVIVE_EVERY_MS = 30_000;

/** An error's message; fetch's "fetch failed" gets its cause (connect ECONNREFUSED …, getaddrinfo ENOTFOUND …). */
function errText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : '';
  return cause !== '' && !err.message.includes(cause) ? `${err.message} (${cause})` : err.message;
}

export class McpHub {
  private readonly conns = new Map<string, Conn>();
  private readonly clock: Clock;
  private closed = false;

  constructor(specs: readonly McpServerSpec[], private readonly opts: HubOptions) {
    this.clock = opts.clock ?? realClock;
    for (const spec of specs) {
      this.conns.set(spec.name, { spec, state: 'connecting', client: null, built: null, tools: [], listChangedPending: false, restartsAt: [], closing: false, inflight: new Set(), probing: false, reviving: null, revivedAt: 0 });
    }
  }

  /** Connects every server in parallel; resolves when each is ready or failed (never rejects). */
  start(): Promise<void> {
    return Promise.all([...this.conns.values()].map((c) => this.connect(c))).then(() => undefined);
  }

  /** Resolves once every server has settled (ready, failed or closed), or after `timeoutMs`. A failed HTTP server is
   *  tried again first (at most every REVIVE_EVERY_MS): it is not our process and may be back. */
  async settled(timeoutMs: number): Promise<void> {
    const deadline = this.clock.now() + timeoutMs;
    for (const c of this.conns.values()) {
      if (c.state === 'failed' && c.spec.transport === 'http' && this.clock.now() - c.revivedAt >= REVIVE_EVERY_MS) this.opts.tasks.go(`mcp-revive:${c.spec.name}`, () => this.revive(c));
    }
    while ([...this.conns.values()].some((c) => c.state === 'connecting' || c.state === 'restarting') && this.clock.now() < deadline) {
      await sleep(this.clock, 20);
    }
  }

  status(): ServerStatus[] {
    return [...this.conns.values()].map((c) => this.statusOf(c));
  }

  /** Every tool the ready servers list (with `server`, that one's), callable or not: what `yagent mcp tools` shows. */
  tools(server?: string): McpToolInfo[] {
    return [...this.conns.values()].filter((c) => c.state === 'ready' && (server === undefined || c.spec.name === server)).flatMap((c) => c.tools);
  }

  /** The tools agents may call: of ready servers (with `agent`, those whose `agents` list names it), task-only ones left out. */
  catalogue(agent?: string): McpToolInfo[] {
    return [...this.conns.values()]
      .filter((c) => c.state === 'ready' && (agent === undefined || c.spec.agents.includes(agent)))
      .flatMap((c) => c.tools.filter((t) => !t.taskOnly));
  }

  /** True when some server lists its tools for `agent` (agents that see none never wait for MCP). */
  serves(agent: string): boolean {
    return [...this.conns.values()].some((c) => c.spec.agents.includes(agent));
  }

  /** One call; every outcome (tool error, server death, timeout, cancel) is a result, never a throw. */
  async call(server: string, tool: string, args: Record<string, unknown>, signal?: CallSignal): Promise<RenderedResult> {
    const c = this.conns.get(server);
    if (!c) return { isError: true, text: `MCP server "${server}" is not configured` };
    if (c.state === 'failed' && c.spec.transport === 'http') await this.revive(c);
    if (c.state !== 'ready' || !c.client) return { isError: true, text: `MCP server "${server}" is ${c.state}${c.error ? `: ${c.error}` : ''}` };
    if (c.tools.find((t) => t.name === tool)?.taskOnly === true) return { isError: true, text: `tool "${tool}" of MCP server "${server}" runs only as an MCP task, which yagent does not support` };
    const client = c.client;
    // HTTP: a call of its own abort, so that a server found gone fails it now rather than at tool_timeout; the
    // caller's cancel aborts it too (checked first below, so a cancel still reads as one)
    const gone = c.spec.transport === 'http' ? new AbortController() : null;
    const follow = gone !== null && signal !== undefined ? (): void => gone.abort(signal.reason) : null;
    if (follow !== null) {
      if (signal?.aborted === true) follow();
      else signal?.addEventListener('abort', follow);
    }
    const sig: CallSignal | undefined = gone?.signal ?? signal;
    if (gone !== null) c.inflight.add(gone);
    try {
      // the SDK reads of its signal only what CallSignal has (cancel.ts): the facade's CallCancel is enough. No
      // spread of an optional part here: V8 copies one through a slow path, ~3 µs a call in this worker's profile
      const res = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: sig as AbortSignal | undefined,
        timeout: c.spec.toolTimeoutMs,
        // a long tool that reports progress is alive: progress resets the timeout (anti-pattern 5)
        resetTimeoutOnProgress: true,
        onprogress: noProgress,
      });
      return renderCallResult(res);
    } catch (err) {
      if (signal?.aborted) return { isError: true, text: 'cancelled' };
      if (gone?.signal.aborted === true) return { isError: true, text: `MCP call ${server}/${tool} failed: ${errText(gone.signal.reason)}` };
      // not an answer of the server (an McpError is one): over HTTP the server may be gone
      if (gone !== null && !(err instanceof McpError)) this.suspect(c, client);
      return { isError: true, text: `MCP call ${server}/${tool} failed: ${errText(err)}` };
    } finally {
      if (gone !== null) c.inflight.delete(gone);
      if (follow !== null) signal?.removeEventListener('abort', follow);
    }
  }

  /** Closes every client (stdio children are terminated by their transports). `now`: the server groups get SIGTERM
   *  first (the SDK waits 2 s for a server to exit on its own, which one still busy with a cancelled call does not). */
  async close(opts: { now?: boolean } = {}): Promise<void> {
    this.closed = true;
    await Promise.all([...this.conns.values()].map((c) => this.shut(c, 'closed', opts.now === true)));
  }

  private statusOf(c: Conn): ServerStatus {
    return {
      name: c.spec.name,
      transport: c.spec.transport,
      state: c.state,
      tools: c.tools.length,
      ...(c.error !== undefined ? { error: c.error } : {}),
      pid: c.built?.pid() ?? null,
      restarts: c.restartsAt.length,
    };
  }

  private setState(c: Conn, state: ServerState, error?: string): void {
    c.state = state;
    if (error !== undefined) c.error = error;
    else if (state === 'ready') delete c.error;
    this.opts.onState?.(this.statusOf(c));
  }

  private async connect(c: Conn): Promise<void> {
    if (this.closed) return;
    let client: Client | null = null;
    // what the transport saw go wrong while connecting (stdout that is not JSON-RPC, a refused stream): the diagnosis
    let wireError = '';
    try {
      c.built = null;
      c.built = buildTransport(c.spec, this.opts.env);
      client = new Client(CLIENT_INFO, { capabilities: {} });
      c.client = client;
      const me = client;
      client.onerror = (e) => {
        if (wireError === '') wireError = errText(e).slice(0, 200);
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        // never refresh inside the read loop: the refresh's own response would wait on us (pitfall 45)
        if (c.state !== 'ready' || c.client !== me) c.listChangedPending = true;
        else this.opts.tasks.go(`mcp-refresh:${c.spec.name}`, () => this.refresh(c, me));
      });
      const connecting = client.connect(c.built.transport, { timeout: c.spec.startupTimeoutMs });
      this.trackGroup(c);
      await connecting;
      await this.loadTools(c, client);
      if (this.closed || c.client !== me) return;
      client.onclose = () => this.lost(c, me);
      // HTTP: stream errors (the SDK resumes streams itself) may mean a dead server; a ping tells
      client.onerror = c.spec.transport === 'http' ? () => this.suspect(c, me) : () => undefined;
      this.setState(c, 'ready');
      if (c.listChangedPending) {
        c.listChangedPending = false;
        await this.refresh(c, me);
      }
    } catch (err) {
      const tail = c.built?.stderrTail() ?? '';
      const text = errText(err);
      const seen = wireError !== '' && !text.includes(wireError) ? ` (${wireError})` : '';
      const message = `${text}${seen}${tail !== '' ? ` (stderr: ${tail.split('\n').slice(-3).join(' | ')})` : ''}`;
      await client?.close().catch(() => undefined); // best-effort cleanup: the start failure above is what is reported
      this.endGroup(c);
      if (c.client === client) c.client = null;
      this.setState(c, 'failed', message);
    }
  }

  private async loadTools(c: Conn, client: Client): Promise<void> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor !== undefined ? { cursor } : undefined, { timeout: c.spec.startupTimeoutMs });
      for (const t of page.tools) {
        tools.push({
          server: c.spec.name,
          name: t.name,
          description: t.description ?? t.title ?? '',
          inputSchema: t.inputSchema as Record<string, unknown>,
          readOnly: t.annotations?.readOnlyHint === true,
          destructive: t.annotations?.readOnlyHint !== true && t.annotations?.destructiveHint !== false,
          allowWrite: c.spec.allowWrite,
          taskOnly: t.execution?.taskSupport === 'required',
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    c.tools = tools;
  }

  private async refresh(c: Conn, client: Client): Promise<void> {
    if (c.client !== client || c.state !== 'ready') return;
    try {
      await this.loadTools(c, client);
      this.opts.onState?.(this.statusOf(c));
    } catch (err) {
      c.error = `tool list refresh failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** HTTP has no process whose exit closes the client: after an error on the wire a ping tells a blip from a server
   *  that is gone (refused, or restarted and forgot our session); a gone one fails its calls and is reconnected. */
  private suspect(c: Conn, client: Client): void {
    if (this.closed || c.client !== client || c.state !== 'ready' || c.probing) return;
    c.probing = true;
    this.opts.tasks.go(`mcp-probe:${c.spec.name}`, async () => {
      try {
        await client.ping({ timeout: c.spec.startupTimeoutMs });
      } catch (err) {
        if (c.client !== client) return;
        const why = new Error(`the connection to the server was lost (${errText(err)})`);
        for (const ctl of c.inflight) ctl.abort(why);
        this.lost(c, client);
      } finally {
        c.probing = false;
      }
    });
  }

  /** A failed HTTP server is tried again (its process is not ours: it may be back); one attempt at a time. */
  private revive(c: Conn): Promise<void> {
    if (c.state !== 'failed' || c.spec.transport !== 'http' || this.closed) return c.reviving ?? Promise.resolve();
    c.revivedAt = this.clock.now();
    this.setState(c, 'restarting');
    c.reviving ??= this.connect(c).finally(() => {
      c.reviving = null;
    });
    return c.reviving;
  }

  /** The connection died under us: pending calls were rejected by the SDK; restart within the intensity. */
  private lost(c: Conn, client: Client): void {
    if (this.closed || c.closing || c.client !== client) return;
    c.client = null;
    this.endGroup(c);
    const now = this.clock.now();
    const window = this.opts.restartWindowMs ?? 60_000;
    c.restartsAt = c.restartsAt.filter((t) => now - t < window);
    if (c.restartsAt.length >= (this.opts.maxRestarts ?? 3)) {
      this.setState(c, 'failed', `the server exited ${c.restartsAt.length + 1} times within ${window} ms; not restarted again`);
      return;
    }
    c.restartsAt.push(now);
    this.setState(c, 'restarting', 'the server connection closed');
    const backoff = (this.opts.restartBackoffMs ?? 200) * 2 ** (c.restartsAt.length - 1);
    this.opts.tasks.go(`mcp-restart:${c.spec.name}`, async (signal) => {
      // HTTP: nothing closed the old client (its stream reconnects would go on)
      await client.close().catch(() => undefined); // best-effort: the old client is being replaced
      await sleep(this.clock, backoff, signal);
      c.tools = [];
      await this.connect(c);
    });
  }

  private async shut(c: Conn, state: ServerState, now = false): Promise<void> {
    c.closing = true;
    const client = c.client;
    c.client = null;
    if (now) this.endGroup(c);
    await client?.close().catch(() => undefined); // best-effort: the server is going away either way
    this.endGroup(c);
    this.setState(c, state);
  }

  /** The transport has spawned its child (synchronously in start): register its group. */
  private trackGroup(c: Conn): void {
    const pid = c.built?.pid() ?? null;
    if (pid === null || !c.built?.grouped) return;
    const exited = c.built.exited();
    c.group = { pgid: pid, exited, release: trackProcessGroup(pid, exited) };
  }

  /** SIGTERM to the server's whole group (launcher + grandchildren); released once nothing of it is left. */
  private endGroup(c: Conn): void {
    const g = c.group;
    if (!g) return;
    delete c.group;
    try {
      process.kill(-g.pgid, 'SIGTERM');
    } catch {
      // the group is already empty
    }
    this.opts.tasks.go(`mcp-reap:${c.spec.name}`, async () => {
      await g.exited;
      if (!groupAlive(g.pgid)) g.release();
    });
  }
}
