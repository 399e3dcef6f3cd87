// Pins run_bash's process-group discipline: timeout and cancellation kill the whole group, including
// grandchildren that ignore SIGTERM and hold stdout open (pitfall 46); output is capped with a marker.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInGroup } from '../../src/actors/tools/process-group.js';
import { callTool } from '../../src/actors/tools/adapter.js';
import { call, isAlive, makeDeps, tempDir } from './helpers.js';

/** Live (non-zombie) processes whose process group is `pgid`. */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') pids.push(Number(name));
    } catch {
      // process vanished while scanning
    }
  }
  return pids;
}

const HOLDER = `bash -c 'trap "" TERM; sleep 30' & echo "gc=$!"; sleep 30`;

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
});
afterEach(() => ws.cleanup());

describe('run_bash process group', () => {
  it('timeout returns within timeout + grace and no process of the group survives (by pid)', async () => {
    const t0 = Date.now();
    const r = await runInGroup({ command: HOLDER, cwd: ws.path, timeoutMs: 800, killGraceMs: 300, pipeGraceMs: 100, signal: new AbortController().signal });
    const elapsed = Date.now() - t0;
    expect(r.timedOut).toBe(true);
    const gc = Number(/gc=(\d+)/.exec(r.output)?.[1]);
    expect(gc).toBeGreaterThan(0);
    expect(elapsed).toBeLessThan(800 + 300 + 100 + 8000); // timeout + grace (+ a loaded machine's slack), far below the 30 s sleeps
    expect(isAlive(gc)).toBe(false);
    expect(isAlive(r.pid)).toBe(false);
    expect(groupMembers(r.pid)).toEqual([]);
  });

  it('a normal exit does not wait on pipe EOF held by a background grandchild', async () => {
    const t0 = Date.now();
    const r = await runInGroup({ command: 'sleep 30 & echo "gc=$!"; echo done', cwd: ws.path, timeoutMs: 20_000, pipeGraceMs: 150, signal: new AbortController().signal });
    expect(Date.now() - t0).toBeLessThan(20_000); // far below the background sleep's 30 s
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatch(/done/);
    expect(r.killedStragglers).toBe(true);
    expect(isAlive(Number(/gc=(\d+)/.exec(r.output)?.[1]))).toBe(false);
  });

  it('a command that redirects its background child away from the pipe is not treated as a straggler', async () => {
    const r = await runInGroup({ command: 'echo quick', cwd: ws.path, timeoutMs: 20_000, signal: new AbortController().signal });
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, cancelled: false, killedStragglers: false });
    expect(r.output).toBe('quick\n');
  });

  it('cancellation kills the whole group too', async () => {
    const ac = new AbortController();
    const pending = runInGroup({ command: HOLDER, cwd: ws.path, timeoutMs: 20_000, killGraceMs: 200, pipeGraceMs: 100, signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    const r = await pending;
    expect(r.cancelled).toBe(true);
    expect(groupMembers(r.pid)).toEqual([]);
  });

  it('output is capped, keeping head and tail, with a visible marker', async () => {
    const r = await runInGroup({ command: 'echo START; head -c 300000 /dev/zero | tr "\\0" x; echo; echo END', cwd: ws.path, timeoutMs: 20_000, maxCaptureBytes: 10_000, signal: new AbortController().signal });
    expect(r.output.startsWith('START')).toBe(true);
    expect(r.output.trimEnd().endsWith('END')).toBe(true);
    expect(r.output).toMatch(/characters truncated/);
    expect(r.output.length).toBeLessThan(10_200);
  });
});

describe('run_bash through the adapter', () => {
  it('a timeout is a result telling the model what happened', async () => {
    const res = await callTool(call('run_bash', { command: 'sleep 5', is_dangerous: false, timeout_seconds: 1 }), makeDeps(ws.path), new AbortController().signal);
    expect(JSON.parse(res.content)).toMatchObject({ error: { kind: 'timeout' } });
  });

  it('exit status and output come back; is_dangerous in a headless run fails closed without running', async () => {
    const okRes = await callTool(call('run_bash', { command: 'echo hello; exit 3', is_dangerous: false }), makeDeps(ws.path), new AbortController().signal);
    expect(okRes.content).toMatch(/^exit code 3\nhello/);
    const res = await callTool(call('run_bash', { command: 'touch marker', is_dangerous: true }), makeDeps(ws.path), new AbortController().signal);
    expect(JSON.parse(res.content)).toMatchObject({ error: { kind: 'authorization_unavailable' } });
    expect(readdirSync(ws.path)).toEqual([]);
  });
});
