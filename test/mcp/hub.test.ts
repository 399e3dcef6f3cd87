// McpHub against real MCP servers from npm: stdio and Streamable HTTP, list, call, list_changed, crash, cancel.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskGroup } from '../../src/runtime/index.js';
import { McpHub, type ServerStatus } from '../../src/actors/mcp/hub.js';
import type { McpServerSpec } from '../../src/runtime/config/mcp-servers.js';
import { alive, EVERYTHING, everythingHttp, everythingStdio, filesystemStdio, spec } from './servers.js';
import { until } from '../runtime/helpers.js';
import { groupAlive } from '../../src/runtime/process-groups.js';

const hubs: McpHub[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
  for (const c of cleanups.splice(0)) c();
});

function hub(specs: McpServerSpec[], states: ServerStatus[] = []): McpHub {
  const h = new McpHub(specs, { tasks: createTaskGroup(), onState: (s) => states.push(s), restartBackoffMs: 10 });
  hubs.push(h);
  return h;
}

describe('McpHub with real servers', () => {
  it('stdio: server-everything connects, lists its tools with annotations, and a call returns its text', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    const [st] = h.status();
    expect(st).toMatchObject({ name: 'every', state: 'ready', transport: 'stdio' });
    const echo = h.catalogue().find((t) => t.name === 'echo');
    expect(echo).toMatchObject({ server: 'every', readOnly: true, destructive: false });
    expect(echo?.inputSchema).toMatchObject({ type: 'object' });
    const toggle = h.catalogue().find((t) => t.name === 'toggle-subscriber-updates');
    expect(toggle?.readOnly).toBe(false);
    const r = await h.call('every', 'echo', { message: 'hello mcp' });
    expect(r).toEqual({ isError: false, text: 'Echo: hello mcp' });
    const sum = await h.call('every', 'get-sum', { a: 2, b: 40 });
    expect(sum.text).toContain('42');
  });

  it('a tool registered after initialisation (list_changed) is in the catalogue once the server is ready', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    // server-everything registers simulate-research-query in oninitialized and announces it with list_changed
    await until(() => h.catalogue().some((t) => t.name === 'simulate-research-query'), 5000, 'list_changed refresh');
    expect(h.catalogue().filter((t) => t.name === 'simulate-research-query')).toHaveLength(1);
  });

  it('images come back as a note with their size, not base64', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    const r = await h.call('every', 'get-tiny-image', {});
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/\[image returned: image\/png, \d+ bytes/);
    expect(r.text).not.toMatch(/iVBOR/);
  });

  it('Streamable HTTP: server-everything over loopback lists and calls', async () => {
    const srv = await everythingHttp();
    cleanups.push(srv.stop);
    const h = hub([spec({ name: 'web', transport: 'http', url: srv.url })]);
    await h.start();
    expect(h.status()[0]).toMatchObject({ state: 'ready', transport: 'http' });
    expect((await h.call('web', 'echo', { message: 'over http' })).text).toBe('Echo: over http');
  });

  it('filesystem server: reads a file of the allowed dir; its write tools are not read-only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-mcp-fs-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a.txt'), 'alpha');
    const h = hub([filesystemStdio(dir)]);
    await h.start();
    const write = h.catalogue().find((t) => t.name === 'write_file');
    expect(write).toMatchObject({ readOnly: false, destructive: true });
    const r = await h.call('fs', 'read_text_file', { path: join(dir, 'a.txt') });
    expect(r).toEqual({ isError: false, text: 'alpha' });
  });

  it('a server that fails to start is reported failed with a reason; the others still serve', async () => {
    const states: ServerStatus[] = [];
    const h = hub([spec({ name: 'broken', command: process.execPath, args: ['-e', 'console.error("boom: no config"); process.exit(3)'] }), everythingStdio()], states);
    await h.start();
    const byName = Object.fromEntries(h.status().map((s) => [s.name, s]));
    expect(byName['broken']?.state).toBe('failed');
    expect(byName['broken']?.error).toMatch(/boom: no config|closed/i);
    expect(byName['every']?.state).toBe('ready');
    expect(states.some((s) => s.name === 'broken' && s.state === 'failed')).toBe(true);
  });

  it('a server killed mid-call: the call gets one error result and the server is restarted', async () => {
    const states: ServerStatus[] = [];
    const h = hub([everythingStdio()], states);
    await h.start();
    const pid = h.status()[0]?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    const call = h.call('every', 'trigger-long-running-operation', { duration: 30, steps: 30 });
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, 'SIGKILL');
    const r = await call;
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/closed|failed/i);
    await until(() => h.status()[0]?.state === 'ready' && h.status()[0]?.pid !== pid, 15_000, 'restart');
    expect(states.map((s) => s.state)).toContain('restarting');
    expect((await h.call('every', 'echo', { message: 'back' })).text).toBe('Echo: back');
  });

  it('cancelling a call aborts it at once and the server keeps serving; close leaves no server process', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    const pid = h.status()[0]?.pid ?? 0;
    const ctl = new AbortController();
    const started = Date.now();
    const call = h.call('every', 'trigger-long-running-operation', { duration: 20, steps: 20 }, ctl.signal);
    setTimeout(() => ctl.abort(), 200);
    const r = await call;
    expect(r).toEqual({ isError: true, text: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await h.call('every', 'echo', { message: 'still here' })).text).toBe('Echo: still here');
    await h.close();
    await until(() => !alive(pid), 5000, 'server exit');
    expect(alive(pid)).toBe(false);
  });

  it('a launcher and its grandchild server die together on close (the server leads its own process group)', async () => {
    // sh stays the parent (the command is not its last word), the real server is its child: the npx shape
    const h = hub([spec({ name: 'wrapped', command: '/bin/sh', args: ['-c', `"${process.execPath}" "${EVERYTHING}" stdio; exit 0`] })]);
    await h.start();
    const st = h.status()[0];
    expect(st?.state).toBe('ready');
    const pgid = st?.pid ?? 0;
    expect(groupAlive(pgid)).toBe(true);
    await h.close();
    await until(() => !groupAlive(pgid), 5000, 'the whole group to exit');
    expect(groupAlive(pgid)).toBe(false);
  });
});
