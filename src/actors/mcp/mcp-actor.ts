// The mcp actor: one worker under the services supervisor owning every MCP client (and so every stdio
// server process). Calls are started and then long-polled so no RPC outlives its timeout, however long the tool.
import { z } from 'zod';
import { defineActor } from '../../runtime/actor.js';
import type { McpServerSpec } from '../../runtime/config/mcp-servers.js';
import { McpHub, type McpToolInfo, type ServerStatus } from './hub.js';
import type { RenderedResult } from './result.js';
import { MCP_SHARED_KEY } from './client.js';
import { CallCancel } from './cancel.js';

export type CallPoll = { done: true; result: RenderedResult } | { done: false };

/** What agents (over RPC) and the CLI reach. */
export interface McpApi {
  status(): ServerStatus[];
  catalogue(agent?: string): McpToolInfo[];
  serves(agent: string): boolean;
  /** Waits (bounded) until no server is still connecting. */
  settled(timeoutMs: number): Promise<void>;
  /** Starts a call and waits up to `waitMs` for it: a quick tool costs one round trip, a slow one is polled. */
  startCall(id: string, server: string, tool: string, args: Record<string, unknown>, waitMs: number): Promise<CallPoll>;
  /** Resolves when the call is done or after `waitMs` (keep it under the RPC timeout), whichever is first. */
  awaitCall(id: string, waitMs: number): Promise<CallPoll>;
  /** Aborts the call: the SDK sends notifications/cancelled to the server. */
  cancelCall(id: string): void;
}

export const McpActorInputSchema = z.object({
  servers: z.array(z.looseObject({ name: z.string(), transport: z.enum(['stdio', 'http']) })),
  maxRestarts: z.number().int().nonnegative().optional(),
  restartBackoffMs: z.number().int().nonnegative().optional(),
});
/** Specs come normalised from the config (parseMcpServers); the schema checks the shape at the thread boundary. */
export interface McpActorInput {
  servers: McpServerSpec[];
  maxRestarts?: number;
  restartBackoffMs?: number;
}

interface Running {
  result?: RenderedResult;
  /** Settles (never rejects) when the call has its result. */
  done?: Promise<void>;
  /** Not an AbortController: building one per call was the worker's largest cost of ours (cancel.ts). */
  ctl: CallCancel;
  /** Polls waiting for this call now (the caller polls again only after an answer: at most one, in practice). */
  waiters: Waiter[];
}

/** A poll waiting for its call's end or its deadline (Date.now() ms), whichever is first. */
interface Waiter {
  id: string;
  run: Running;
  at: number;
  resolve(p: CallPoll): void;
}

/** The served surface over a hub (also used in-process by the CLI and tests). */
export function mcpFacade(hub: McpHub): McpApi {
  const calls = new Map<string, Running>();
  const answer = (id: string, run: Running): CallPoll => {
    if (run.result === undefined) return { done: false };
    calls.delete(id);
    return { done: true, result: run.result };
  };
  // Every waiting poll ends at its call's end or at its deadline; one timer, armed for the earliest deadline and
  // left armed when a call ends first, serves them all (no timer per call: issue 29). Unref'd: a call in flight
  // holds the worker (and the CLI) open through its server's connection.
  const waiting = new Set<Waiter>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;
  const wake = (w: Waiter): void => {
    waiting.delete(w);
    const i = w.run.waiters.indexOf(w);
    if (i >= 0) w.run.waiters.splice(i, 1);
    w.resolve(answer(w.id, w.run));
  };
  const arm = (at: number): void => {
    if (at >= timerAt) return;
    if (timer !== undefined) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(sweep, Math.max(0, at - Date.now()));
    timer.unref();
  };
  function sweep(): void {
    timer = undefined;
    timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const w of waiting) {
      if (w.at <= now) wake(w);
      else if (w.at < next) next = w.at;
    }
    if (next !== Infinity) arm(next);
  }
  const poll = (id: string, waitMs: number): Promise<CallPoll> => {
    const run = calls.get(id);
    if (!run) return Promise.resolve({ done: true, result: { isError: true, text: `no MCP call ${id} is running` } });
    if (run.result !== undefined) return Promise.resolve(answer(id, run));
    return new Promise<CallPoll>((resolve) => {
      const w: Waiter = { id, run, at: Date.now() + waitMs, resolve };
      waiting.add(w);
      run.waiters.push(w);
      arm(w.at);
    });
  };
  const settle = (run: Running, r: RenderedResult): void => {
    run.result = r;
    for (const w of run.waiters.slice()) wake(w);
  };
  return {
    status: () => hub.status(),
    catalogue: (agent) => hub.catalogue(agent),
    serves: (agent) => hub.serves(agent),
    settled: (ms) => hub.settled(ms),
    startCall(id, server, tool, args, waitMs) {
      if (calls.has(id)) throw new Error(`MCP call id ${id} is already running`);
      const run: Running = { ctl: new CallCancel(), waiters: [] };
      calls.set(id, run);
      // every outcome of hub.call is a result; anything thrown still reaches the caller as one
      run.done = hub.call(server, tool, args, run.ctl).then(
        (r) => settle(run, r),
        (err: unknown) => settle(run, { isError: true, text: `MCP call ${server}/${tool} failed: ${err instanceof Error ? err.message : String(err)}` }),
      );
      return poll(id, waitMs);
    },
    awaitCall: poll,
    cancelCall(id) {
      calls.get(id)?.ctl.abort();
    },
  };
}

let hub: McpHub | null = null;

export default defineActor<McpActorInput, never>({
  kind: 'mcp',
  async serve(ctx, raw) {
    const input = McpActorInputSchema.parse(raw);
    const specs = (raw as McpActorInput).servers;
    const buf = ctx.shared[MCP_SHARED_KEY];
    const generation = buf !== undefined ? new Int32Array(buf) : null;
    hub = new McpHub(specs, {
      tasks: ctx.tasks,
      clock: ctx.clock,
      ...(input.maxRestarts !== undefined ? { maxRestarts: input.maxRestarts } : {}),
      ...(input.restartBackoffMs !== undefined ? { restartBackoffMs: input.restartBackoffMs } : {}),
      onState: (s) => {
        // running agents see the change at their next step (agent-tools.ts compares this counter)
        if (generation !== null) Atomics.add(generation, 0, 1);
        ctx.publish({ type: 'mcp_server_state', server: s.name, state: s.state, tools: s.tools, ...(s.error !== undefined ? { error: s.error } : {}) });
      },
    });
    // serving does not wait for the servers: agents that need them wait in `settled`
    const h = hub;
    ctx.tasks.go('mcp-connect', () => h.start());
    return mcpFacade(h);
  },
  async stop() {
    await hub?.close();
  },
});
