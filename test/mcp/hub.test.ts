// McpHub against real MCP servers from npm: stdio and Streamable HTTP, list, call, list_changed, crash, cancel.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskGroup } from '../../src/runtime/index.js';
import { McpHub, type ServerStatus } from '../../src/actors/mcp/hub.js';
import type { McpServerSpec } from '../../src/runtime/config/mcp-servers.js';
import { EVERYTHING, everythingStdio, filesystemStdio, spec, tapLog, tappedEverything } from './servers.js';
import { until } from '../runtime/helpers.js';
import { groupAlive } from '../../src/runtime/process-groups.js';
import { mcpFacade } from '../../src/actors/mcp/mcp-actor.js';

const hubs: McpHub[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
  for (const c of cleanups.splice(0)) c();
});

/** A fresh log file for the stdio tap (removed after the test). */
function tmpLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'yagent-mcp-tap-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'tap.jsonl');
}

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

  it('a list_changed that arrives before the connection is ready is replayed once it is (pitfall 45)', async () => {
    // the tap answers the first tools/list before the server registers its late tool and lets the server's
    // list_changed reach the client first: only the replay after ready can find the late tool
    const log = tmpLog();
    const h = hub([tappedEverything(log, 'early')]);
    await h.start();
    await until(() => h.tools().some((t) => t.name === 'simulate-research-query'), 10_000, 'the replayed refresh');
    expect(tapLog(log).filter((m) => m.method === 'tools/list').length).toBeGreaterThanOrEqual(2);
    expect(h.tools().filter((t) => t.name === 'simulate-research-query')).toHaveLength(1);
  });

  it('a list_changed while ready refreshes the tool list (outside the read loop)', async () => {
    const log = tmpLog();
    const h = hub([tappedEverything(log, 'late')]);
    await h.start();
    // the late tool is not in the first answer, and its list_changed is held until the first tools/call
    expect(h.tools().some((t) => t.name === 'simulate-research-query')).toBe(false);
    expect((await h.call('every', 'echo', { message: 'go' })).text).toBe('Echo: go');
    await until(() => h.tools().some((t) => t.name === 'simulate-research-query'), 10_000, 'the refresh');
    expect(h.status()[0]?.tools).toBe(h.tools().length);
  });

  it('a tool that needs task-based execution is listed but not offered to agents (plain tools/call cannot run it)', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    await until(() => h.tools().some((t) => t.name === 'simulate-research-query'), 10_000, 'the late tool');
    expect(h.tools().find((t) => t.name === 'simulate-research-query')?.taskOnly).toBe(true);
    expect(h.catalogue('coding').some((t) => t.name === 'simulate-research-query')).toBe(false);
    expect(h.catalogue('coding').some((t) => t.name === 'echo')).toBe(true);
    expect(await h.call('every', 'simulate-research-query', { topic: 'x' })).toEqual({ isError: true, text: 'tool "simulate-research-query" of MCP server "every" runs only as an MCP task, which yagent does not support' });
  });

  it('servers connect in parallel, each under its own startup_timeout', async () => {
    // a process that reads stdin and never answers: the hung server is first in the list and waits 60 s
    const hung = (name: string, ms: number): McpServerSpec => spec({ name, command: process.execPath, args: ['-e', 'process.stdin.resume()'], startupTimeoutMs: ms });
    const h = hub([hung('slow', 60_000), everythingStdio()]);
    const started = h.start();
    await until(() => h.status().find((s) => s.name === 'every')?.state === 'ready', 20_000, 'every ready while slow still connects');
    expect(h.status().find((s) => s.name === 'slow')?.state).toBe('connecting');
    await h.close();
    await started;
    const quick = hub([hung('mute', 800)]);
    await quick.start();
    expect(quick.status()[0]).toMatchObject({ state: 'failed' });
    expect(quick.status()[0]?.error).toMatch(/timed out/i);
  });

  it('progress resets the tool timeout; a call without progress within tool_timeout times out', async () => {
    const h = hub([everythingStdio('every', { toolTimeoutMs: 1500 })]);
    await h.start();
    // 3 s in all (twice the timeout), a progress notification every 0.25 s
    const ok = await h.call('every', 'trigger-long-running-operation', { duration: 3, steps: 12 });
    expect(ok).toMatchObject({ isError: false });
    expect(ok.text).toMatch(/Long running operation completed/);
    // one step of 3 s: the first progress would come after the timeout
    const late = await h.call('every', 'trigger-long-running-operation', { duration: 3, steps: 1 });
    expect(late.isError).toBe(true);
    expect(late.text).toMatch(/timed out/i);
  });

  it('embedded resources come back as their text; a tool error is an error result', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    const r = await h.call('every', 'get-resource-reference', { resourceType: 'Text', resourceId: 3 });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/3 \(text\/plain\)\]\nResource 3: This is a plaintext resource/);
    const bad = await h.call('every', 'get-resource-reference', { resourceType: 'Text', resourceId: -1 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/Invalid resourceId/);
  });

  it('images come back as a note with their size, not base64', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    const r = await h.call('every', 'get-tiny-image', {});
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/\[image returned: image\/png, \d+ bytes/);
    expect(r.text).not.toMatch(/iVBOR/);
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
    const missing = hub([spec({ name: 'gone', command: 'no-such-mcp-binary' })]);
    await missing.start();
    expect(missing.status()[0]).toMatchObject({ state: 'failed', error: 'command "no-such-mcp-binary" not found on PATH' });
  });

  it('a server killed mid-call: the call gets one error result and the server is restarted', async () => {
    const states: ServerStatus[] = [];
    const log = tmpLog();
    const h = hub([tappedEverything(log, 'log')], states);
    await h.start();
    const pid = h.status()[0]?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    const call = h.call('every', 'trigger-long-running-operation', { duration: 30, steps: 30 });
    await until(() => tapLog(log).some((m) => m.method === 'tools/call'), 5000, 'the call to reach the server');
    process.kill(-pid, 'SIGKILL'); // the tap and the server behind it
    const r = await call;
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/closed|failed/i);
    await until(() => h.status()[0]?.state === 'ready' && h.status()[0]?.pid !== pid, 15_000, 'restart');
    expect(states.map((s) => s.state)).toContain('restarting');
    expect((await h.call('every', 'echo', { message: 'back' })).text).toBe('Echo: back');
  });

  it('cancelling a call sends notifications/cancelled for it; the server keeps serving; close leaves no server process', async () => {
    const log = tmpLog();
    const h = hub([tappedEverything(log, 'log')]);
    await h.start();
    const pid = h.status()[0]?.pid ?? 0;
    const ctl = new AbortController();
    // 60 s of work: only the cancel can end the call within the test's timeout
    const call = h.call('every', 'trigger-long-running-operation', { duration: 60, steps: 60 }, ctl.signal);
    await until(() => tapLog(log).some((m) => m.method === 'tools/call'), 5000, 'the call to reach the server');
    ctl.abort();
    expect(await call).toEqual({ isError: true, text: 'cancelled' });
    const sent = tapLog(log).find((m) => m.method === 'tools/call');
    await until(() => tapLog(log).some((m) => m.method === 'notifications/cancelled'), 5000, 'the cancel notification');
    expect(tapLog(log).find((m) => m.method === 'notifications/cancelled')?.params).toMatchObject({ requestId: sent?.id });
    expect((await h.call('every', 'echo', { message: 'still here' })).text).toBe('Echo: still here');
    await h.close();
    await until(() => !groupAlive(pid), 5000, 'server exit');
    expect(groupAlive(pid)).toBe(false);
  });

  it('a stdio server leads its own process group inside our session (a new session is a new scheduler autogroup)', async () => {
    // /proc/<pid>/stat: after the command's parenthesised name come state, ppid, pgrp, session
    const ids = (pid: number | 'self'): { pgrp: number; session: number } => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [, , pgrp = '', session = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { pgrp: Number(pgrp), session: Number(session) };
    };
    const h = hub([everythingStdio('every')]);
    await h.start();
    const pid = h.status()[0]?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    expect(ids(pid)).toEqual({ pgrp: pid, session: ids('self').session });
    await h.close();
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

  it('the facade long-polls a call longer than its wait: not done, then done for every poll waiting; an unknown id is an error result', async () => {
    const h = hub([everythingStdio()]);
    await h.start();
    const api = mcpFacade(h);
    // the tool sleeps 0.4 s: a 1 ms wait cannot see it done
    const first = await api.startCall('slow', 'every', 'trigger-long-running-operation', { duration: 0.4, steps: 1 }, 1);
    expect(first).toEqual({ done: false });
    // two polls waiting at once (a retried RPC): the call's end wakes both (their wait is past the test's timeout)
    const [a, b] = await Promise.all([api.awaitCall('slow', 120_000), api.awaitCall('slow', 120_000)]);
    expect(a).toMatchObject({ done: true, result: { isError: false } });
    expect(b).toEqual(a);
    expect(JSON.stringify(a)).toMatch(/completed/i);
    // answered: the call is forgotten
    expect(await api.awaitCall('slow', 1)).toMatchObject({ done: true, result: { isError: true, text: 'no MCP call slow is running' } });
    // a quick call is answered by its first poll
    expect(await api.startCall('quick', 'every', 'echo', { message: 'hi' }, 10_000)).toMatchObject({ done: true, result: { isError: false, text: expect.stringContaining('hi') as unknown } });
  });
});
