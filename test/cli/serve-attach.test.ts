// serve + attach as real processes: token required, 0600 discovery, a nested approval answered by another client.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamLineSchema } from '../../bin/cli/stream-json.js';
import { childReaper, collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type CliResult, type Sandbox } from './helpers.js';
import { writingOutside } from './scripts.js';

let sb: Sandbox | undefined;
const children = childReaper();
afterEach(() => {
  children.reap();
  sb?.cleanup();
});

function discoveryFile(s: Sandbox, pid?: number): string | undefined {
  const dir = join(s.home, 'run');
  const re = pid === undefined ? /^supervisor-\d+\.json$/ : new RegExp(`^supervisor-${pid}\\.json$`);
  const name = existsSync(dir) ? readdirSync(dir).find((n) => re.test(n)) : undefined;
  return name ? join(dir, name) : undefined; // .json only: the store's tmp file ends in .tmp
}

interface Approval { taskId: string; delegationId: string | null; request: { requestId: string; agent: string } }

/** `yagent attach approvals --json`: the supervisor's pending requests. */
async function approvals(env: NodeJS.ProcessEnv): Promise<Approval[]> {
  return (JSON.parse((await runCli(['attach', 'approvals', '--json'], env)).stdout || '{"approvals":[]}') as { approvals: Approval[] }).approvals;
}

/** A supervisor; client 1 sends it a task and streams it (stream-json), client 2 follows that task's events from the
 *  start (`attach logs -f`). */
async function sentAndWatched(s: Sandbox, env: NodeJS.ProcessEnv, cwd: string): Promise<{ serve: ChildProcess; taskId: string; sent: Promise<CliResult>; watched: Promise<CliResult> }> {
  const serve = start(['serve'], env);
  children.push(serve);
  await until(() => discoveryFile(s), 'the discovery file');
  const sender = start(['-p', 'write the report', '--attach', '--output-format', 'stream-json'], env, { cwd });
  children.push(sender);
  const sent = collect(sender);
  const taskId = await until(async () => {
    const r = await runCli(['attach', 'tasks', '--json'], env);
    return (JSON.parse(r.stdout || '{"tasks":[]}') as { tasks: { taskId: string }[] }).tasks[0]?.taskId;
  }, 'the task');
  const watcher = start(['attach', 'logs', '-f', taskId, '--json'], env);
  children.push(watcher);
  return { serve, taskId, sent, watched: collect(watcher) };
}

describe('serve and attach', () => {
  it('the token is required, the discovery file is 0600 and removed on exit; a dead pid\'s stale file is pruned at start', async () => {
    sb = sandbox(GOOD_CONFIG);
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
    const stale = join(sb.home, 'run', `supervisor-${dead}.json`);
    mkdirSync(join(sb.home, 'run'), { recursive: true, mode: 0o700 });
    writeFileSync(stale, JSON.stringify({ version: '0', pid: dead, address: 'http://127.0.0.1:1', token: 'x'.repeat(64), startedAt: 1 }));
    const serve = start(['serve'], withScript(sb, 'export default {};'));
    children.push(serve);
    const exited = collect(serve);
    const file = await until(() => discoveryFile(sb as Sandbox, serve.pid), 'the discovery file');
    await until(() => (existsSync(stale) ? undefined : true), 'the stale discovery file pruned');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const info = await until(() => {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as { address: string; token: string; pid: number };
      } catch {
        return undefined;
      }
    }, 'a complete discovery file');
    expect(info.pid).toBe(serve.pid);
    expect(info.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${info.address}/api/tree`)).status).toBe(401);
    expect((await fetch(`${info.address}/api/tree`, { headers: { authorization: `Bearer ${'0'.repeat(64)}` } })).status).toBe(401);
    const ok = await fetch(`${info.address}/api/tree`, { headers: { authorization: `Bearer ${info.token}` } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { name: string }).name).toBe('root');
    serve.kill('SIGINT');
    expect((await exited).code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('a second process approves a nested Coding write request while a third sees the same events', async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    const ws = project(s, {});
    const target = join(s.dir, 'outside.txt');
    const env = withScript(s, writingOutside(target));
    // client 1 sends the task and streams it, client 3 follows the same task's events from the start
    const { serve, taskId, sent, watched } = await sentAndWatched(s, env, ws);
    // client 2 sees the pending request of the nested Coding agent and approves it
    const pending = await until(async () => (await approvals(env))[0], 'a pending approval');
    expect(pending.taskId).toBe(taskId);
    expect(pending.request.agent).toBe('coding');
    expect(pending.delegationId).not.toBeNull();
    expect(existsSync(target)).toBe(false);
    const approve = await runCli(['attach', 'approve', pending.request.requestId], env);
    expect(approve.code).toBe(0);
    const r1 = await sent;
    const r3 = await watched;
    expect(r1.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('written after approval\n');
    const senderSeqs = r1.stdout.trim().split('\n').map((l) => StreamLineSchema.parse(JSON.parse(l))).filter((l) => l.seq !== null).map((l) => `${l.seq}:${l.type}`);
    const watcherSeqs = r3.stdout.trim().split('\n').map((l) => JSON.parse(l) as { seq: number; type: string }).map((e) => `${e.seq}:${e.type}`);
    expect(watcherSeqs.length).toBeGreaterThan(5);
    expect(watcherSeqs).toEqual(senderSeqs);
    expect(watcherSeqs).toContain(senderSeqs.find((x) => x.endsWith(':user_help_response')));
    const ps = await runCli(['attach', 'ps'], env);
    expect(ps.stdout).toMatch(/^root/);
    serve.kill('SIGINT');
  });
});

describe('a withdrawn help request', () => {
  it('is an event every attached client sees, before its delegation and task end, and leaves `attach approvals`', async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    const env = withScript(s, writingOutside(join(s.dir, 'outside.txt')));
    // client 1 sends the task and streams it; client 2 follows the same task
    const { serve, taskId, sent, watched } = await sentAndWatched(s, env, project(s, {}));
    const requestId = await until(async () => (await approvals(env))[0]?.request.requestId, 'a pending approval');
    // the asking Coding run is cancelled while it waits: its request is withdrawn, not answered
    expect((await runCli(['attach', 'cancel', taskId], env)).code).toBe(0);
    const order = (out: string): string[] =>
      out.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data?: Record<string, unknown>; payload?: Record<string, unknown> })
        .filter((e) => ['user_help_withdrawn', 'user_help_response', 'delegation_end', 'task_end'].includes(e.type))
        .map((e) => (e.type === 'user_help_withdrawn' ? `withdrawn:${String((e.data ?? e.payload)?.['requestId'])}` : e.type));
    const [r1, r2] = await Promise.all([sent, watched]);

    expect(order(r1.stdout)).toEqual([`withdrawn:${requestId}`, 'delegation_end', 'task_end']);
    expect(order(r2.stdout)).toEqual([`withdrawn:${requestId}`, 'delegation_end', 'task_end']);
    expect(await approvals(env)).toEqual([]);
    serve.kill('SIGINT');
  });
});

describe('attach without a supervisor', () => {
  it('attach with no running supervisor says how to start one (exit 1)', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['attach', 'ps'], sb.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/yagent serve/);
  });
});
