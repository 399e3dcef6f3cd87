// McpHub over Streamable HTTP against server-everything on loopback (behind a recording relay where the test
// needs to see the wire): headers and bearer token, list_changed on the GET stream, cancel, a server dying mid-call.
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskGroup } from '../../src/runtime/index.js';
import { McpHub, type ServerStatus } from '../../src/actors/mcp/hub.js';
import type { McpServerSpec } from '../../src/runtime/config/mcp-servers.js';
import { everythingHttp, spec } from './servers.js';
import { httpTap } from './http-tap.js';
import { until } from '../runtime/helpers.js';

const hubs: McpHub[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
  for (const c of cleanups.splice(0).reverse()) await c();
});

function hub(specs: McpServerSpec[], env: NodeJS.ProcessEnv = {}, states: ServerStatus[] = []): McpHub {
  const h = new McpHub(specs, { tasks: createTaskGroup(), env, onState: (s) => states.push(s), restartBackoffMs: 10 });
  hubs.push(h);
  return h;
}

async function server(port?: number): Promise<Awaited<ReturnType<typeof everythingHttp>>> {
  const srv = await everythingHttp(port);
  cleanups.push(srv.stop);
  return srv;
}

describe('McpHub over Streamable HTTP', () => {
  it('lists and calls; configured headers and the bearer token from the environment reach the server on every request', async () => {
    const srv = await server();
    const tap = await httpTap(srv.url);
    cleanups.push(tap.close);
    const h = hub([spec({ name: 'web', transport: 'http', url: tap.url, headers: { 'X-Team': 'blue' }, bearerTokenEnv: 'WEB_TOKEN' })], { WEB_TOKEN: 's3cret-token' });
    await h.start();
    expect(h.status()[0]).toMatchObject({ state: 'ready', transport: 'http' });
    expect((await h.call('web', 'echo', { message: 'over http' })).text).toBe('Echo: over http');
    const posts = tap.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.body?.method)).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
    for (const r of tap.requests) expect(r.headers).toMatchObject({ authorization: 'Bearer s3cret-token', 'x-team': 'blue' });
  });

  it('a bearer_token_env that is not set fails that server with the variable named; no request is sent', async () => {
    const srv = await server();
    const tap = await httpTap(srv.url);
    cleanups.push(tap.close);
    const h = hub([spec({ name: 'web', transport: 'http', url: tap.url, bearerTokenEnv: 'MISSING_TOKEN' })], {});
    await h.start();
    expect(h.status()[0]).toMatchObject({ state: 'failed' });
    expect(h.status()[0]?.error).toMatch(/MISSING_TOKEN .*is not set/);
    expect(tap.requests).toEqual([]);
  });

  it('a list_changed on the GET stream while ready refreshes the tool list', async () => {
    const srv = await server();
    const tap = await httpTap(srv.url, { lateInitialized: true });
    cleanups.push(tap.close);
    const h = hub([spec({ name: 'web', transport: 'http', url: tap.url })]);
    await h.start();
    expect(h.tools().some((t) => t.name === 'simulate-research-query')).toBe(false);
    await until(() => h.tools().some((t) => t.name === 'simulate-research-query'), 20_000, 'the refresh');
    expect(tap.requests.filter((r) => r.body?.method === 'tools/list').length).toBeGreaterThanOrEqual(2);
  });

  it('cancelling a call sends notifications/cancelled for it and the server keeps serving', async () => {
    const srv = await server();
    const tap = await httpTap(srv.url);
    cleanups.push(tap.close);
    const h = hub([spec({ name: 'web', transport: 'http', url: tap.url })]);
    await h.start();
    const ctl = new AbortController();
    const call = h.call('web', 'trigger-long-running-operation', { duration: 60, steps: 60 }, ctl.signal);
    await until(() => tap.requests.some((r) => r.body?.method === 'tools/call'), 20_000, 'the call to reach the server');
    ctl.abort();
    expect(await call).toEqual({ isError: true, text: 'cancelled' });
    const sent = tap.requests.find((r) => r.body?.method === 'tools/call');
    await until(() => tap.requests.some((r) => r.body?.method === 'notifications/cancelled'), 20_000, 'the cancel notification');
    expect(tap.requests.find((r) => r.body?.method === 'notifications/cancelled')?.body?.params).toMatchObject({ requestId: sent?.body?.id });
    expect((await h.call('web', 'echo', { message: 'still here' })).text).toBe('Echo: still here');
  });

  it('a server dying mid-call: the call gets one error result long before tool_timeout; once it is back the hub reconnects', async () => {
    const srv = await server();
    const tap = await httpTap(srv.url);
    cleanups.push(tap.close);
    const states: ServerStatus[] = [];
    // a tool_timeout the test cannot reach: only noticing the dead server ends the call in time
    const h = hub([spec({ name: 'web', transport: 'http', url: tap.url, toolTimeoutMs: 600_000 })], {}, states);
    await h.start();
    const call = h.call('web', 'trigger-long-running-operation', { duration: 60, steps: 60 });
    await until(() => tap.requests.some((r) => r.body?.method === 'tools/call' && r.status === 200), 20_000, 'the server to be answering the call');
    srv.child.kill('SIGKILL');
    const r = await call;
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/connection|fetch failed|terminated/i);
    expect(states.map((s) => s.state)).toContain('restarting');
    // the server comes back (a new process: our session is unknown to it); the next call reconnects first if need be
    await server(srv.port);
    expect(await h.call('web', 'echo', { message: 'back' })).toEqual({ isError: false, text: 'Echo: back' });
    expect(h.status()[0]?.state).toBe('ready');
  });
});
