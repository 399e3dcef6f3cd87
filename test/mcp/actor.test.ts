// The mcp actor on real workers under the production services supervisor (beside the real store actor), with
// server-everything behind the stdio tap: a crash of the actor, a crash loop, an agent whose mcp actor is gone,
// and cancelling a call through the tool declaration (agent side → RPC → actor → hub → server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import type { Remote } from '../../src/runtime/actor.js';
import { Runtime } from '../../src/runtime/runtime.js';
import type { SupervisorEvent } from '../../src/runtime/supervisor.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import { MCP_ACTOR_RESTARTS, mcpServiceSpec } from '../../src/actors/mcp/client.js';
import { mcpToolsFor } from '../../src/actors/mcp/agent-tools.js';
import type { McpApi } from '../../src/actors/mcp/mcp-actor.js';
import { mcpToolDeclarations } from '../../src/actors/mcp/tools.js';
import { callTool } from '../../src/actors/tools/adapter.js';
import { surfaceFor } from '../../src/actors/tools/profiles.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import type { McpServerSpec } from '../../src/runtime/config/mcp-servers.js';
import { call, makeDeps } from '../tools/helpers.js';
import { until } from '../runtime/helpers.js';
import { noLiveMember, GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';
import { tapLog, tappedEverything } from './servers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'yagent-mcp-actor-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A runtime with the store and the mcp actor started as the CLI starts them (bin/host/runtime-adapter.ts). */
async function services(servers: McpServerSpec[]): Promise<{ rt: Runtime; mcp: Remote<McpApi>; events: SupervisorEvent[] }> {
  const events: SupervisorEvent[] = [];
  const home = dir();
  const rt = await Runtime.start({ preload: [], spares: 0, onSupervisorEvent: (e) => events.push(e), dispatcher: { onWarn: () => undefined } });
  cleanups.push(() => rt.shutdown(5000));
  await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: home, notesRoot: join(home, 'notes') } });
  await rt.startService(mcpServiceSpec({ servers, restartBackoffMs: 10 }));
  const mcp = rt.connect<McpApi>('mcp', { timeoutMs: 30_000 }); // above settled(20_000): a loaded machine's slow server start is not an RPC timeout
  await mcp.settled(20_000);
  return { rt, mcp, events };
}

/** Ends the mcp actor's worker the way a crash does (not a stop: its supervisor did not ask for it). */
async function crash(rt: Runtime): Promise<void> {
  const live = (rt as unknown as { host: { live: Set<{ name: string; worker: Worker }> } }).host.live;
  // the running one (an exited worker's handle may linger in the set for a moment; its threadId is -1)
  const h = [...live].find((a) => a.name === 'mcp' && a.worker.threadId !== -1);
  if (!h) throw new Error('no mcp worker');
  await h.worker.terminate();
}

/** Retries a call on a service that is restarting (its port closes, its name is re-registered). */
async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (ok(v)) return v;
    } catch (err) {
      if (Date.now() > end) throw err;
    }
    if (Date.now() > end) throw new Error('not in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ready = (st: ReturnType<McpApi['status']>): boolean => st.length > 0 && st.every((s) => s.state === 'ready');

describe('the mcp actor', () => {
  it('a crash of its worker: the call in flight gets one error result, its servers die with it, it is restarted and serves again', async () => {
    const log = join(dir(), 'tap.jsonl');
    const { rt, mcp } = await services([tappedEverything(log, 'log')]);
    const pid = (await mcp.status())[0]?.pid ?? 0;
    const external = mcpToolDeclarations(await mcp.catalogue('coding'), mcp);
    const surface = surfaceFor('coding', { external });
    for (const d of external) surface.load(d.name);
    const deps = makeDeps(dir(), { surface });
    const pending = callTool(call('mcp__every__trigger-long-running-operation', { duration: 60, steps: 60 }), deps, new AbortController().signal);
    await until(() => tapLog(log).some((m) => m.method === 'tools/call'), 5000, 'the call to reach the server');
    await crash(rt);
    const r = await pending;
    expect(r.status).toBe('error');
    expect(r.content).toMatch(/closed|exited|restarted/i);
    // no live process of its group (a terminated worker cannot reap: its direct child may stay a zombie)
    expect(await noLiveMember(pid, GONE_DEADLINE_MS)).toEqual([]);
    await eventually(() => mcp.status(), ready);
    expect((await mcp.status())[0]?.pid).not.toBe(pid);
    const echo = await eventually(() => callTool(call('mcp__every__echo', { message: 'back' }), deps, new AbortController().signal), (x) => x.status === 'ok');
    expect(echo.content).toContain('Echo: back');
  });

  it('a crash loop of the mcp actor uses up its own restart budget (then it stays down) and never restarts the store', async () => {
    const { rt, mcp, events } = await services([tappedEverything(join(dir(), 'tap.jsonl'), 'log')]);
    const gaveUp = (): boolean => events.some((e) => e.type === 'escalated' && e.supervisor === 'mcp-sup');
    let crashes = 0;
    while (!gaveUp() && crashes < 6) {
      await crash(rt);
      crashes++;
      await until(() => gaveUp() || rt.liveActors().includes('mcp'), 10_000, 'a restart or the give-up');
      if (!gaveUp()) await eventually(() => mcp.status(), ready);
    }
    expect(crashes).toBe(MCP_ACTOR_RESTARTS.intensity + 1);
    expect(rt.liveActors()).not.toContain('mcp');
    const store = rt.connect<{ readSettings(): Promise<unknown> }>(STORE_ACTOR);
    await expect(store.readSettings()).resolves.toBeDefined();
    expect(events.filter((e) => e.type === 'child_started' && e.child === STORE_ACTOR)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'escalated' && e.supervisor !== 'mcp-sup')).toEqual([]);
  });

  it('an agent whose mcp actor is gone runs without MCP tools and is told why', async () => {
    const rt = await Runtime.start({ preload: [], spares: 0, dispatcher: { onWarn: () => undefined }, connectWaitMs: 200 });
    cleanups.push(() => rt.shutdown(5000));
    const published: Event[] = [];
    const config = { mcp: { enabled: true, servers: [tappedEverything(join(dir(), 'tap.jsonl'), 'log')] } };
    const tools = await mcpToolsFor((name) => rt.connect(name, { timeoutMs: 2000 }), config, 'coding', (e) => void published.push(e));
    expect(tools.initial).toEqual([]);
    expect(published).toContainEqual(expect.objectContaining({ type: 'log', level: 'warn', message: expect.stringMatching(/MCP .*not available to coding/) }));
  });

  it('cancelling a call through its tool declaration sends notifications/cancelled to the server', async () => {
    const log = join(dir(), 'tap.jsonl');
    const { mcp } = await services([tappedEverything(log, 'log')]);
    const external = mcpToolDeclarations(await mcp.catalogue('coding'), mcp);
    const surface = surfaceFor('coding', { external });
    for (const d of external) surface.load(d.name);
    const ctl = new AbortController();
    const pending = callTool(call('mcp__every__trigger-long-running-operation', { duration: 60, steps: 60 }), makeDeps(dir(), { surface }), ctl.signal);
    await until(() => tapLog(log).some((m) => m.method === 'tools/call'), 5000, 'the call to reach the server');
    ctl.abort();
    expect((await pending).status).toBe('cancelled');
    const sent = tapLog(log).find((m) => m.method === 'tools/call');
    await until(() => tapLog(log).some((m) => m.method === 'notifications/cancelled'), 5000, 'the cancel notification');
    expect(tapLog(log).find((m) => m.method === 'notifications/cancelled')?.params).toMatchObject({ requestId: sent?.id });
  });
});
