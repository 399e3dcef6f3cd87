// serve + attach, sessions: a follow-up (`attach send`) is the next turn of the task's session, and the task memory
// (`/api/memory`, `/api/memory/:type`, DELETE, `attach memory`) holds the real conversation.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childReaper, discovered, GOOD_CONFIG, runCli, sandbox, serveClient, start, until, SERVE_WAIT_MS, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
const children = childReaper();
afterEach(() => {
  children.reap();
  sb?.cleanup();
});


function script(log: string): string {
  return `
import { appendFileSync } from 'node:fs';
const all = (req) => JSON.stringify(req.body.messages || []);
const step = (req) => {
  if (!all(req).includes('follow up')) return { text: 'answer one', finishReason: 'stop' };
  appendFileSync(${JSON.stringify(log)}, all(req) + '\\n');
  return { text: 'answer two', finishReason: 'stop' };
};
export default { director: Array.from({ length: 20 }, () => step) };
`;
}

describe('serve: follow-ups and memory', () => {
  it('attach send continues the task\'s session; /api/memory returns the saved conversation, by type, and deletes it', async () => {
    sb = sandbox(GOOD_CONFIG);
    const log = join(sb.dir, 'followup.log');
    const serve = start(['serve'], withScript(sb, script(log)));
    children.push(serve);
    const { call: api, outcome } = serveClient(await discovered(sb));
    const started = await api('POST', '/api/start_task', { prompt: 'first question', workspace: sb.dir });
    const first = started.json.task_id as string;
    expect((await outcome(first)).text).toBe('answer one');

    const sent = await runCli(['attach', 'send', first, 'follow up', '--json'], sb.env);
    expect(sent.code).toBe(0);
    const follow = JSON.parse(sent.stdout) as { task_id: string; delivered: string };
    expect(follow.delivered).toBe('next_turn');
    expect((await outcome(follow.task_id)).text).toBe('answer two');
    const firstOfTurn2 = readFileSync(log, 'utf8').split('\n')[0] ?? '';
    expect(firstOfTurn2).toContain('first question');
    expect(firstOfTurn2).toContain('answer one');

    const attached = await runCli(['-p', 'follow up again', '--resume', first, '--attach', '--output-format', 'json'], sb.env, { cwd: sb.dir });
    expect(attached.code).toBe(0);
    expect(JSON.parse(attached.stdout)).toMatchObject({ session_id: first, result: 'answer two' });
    const refused = await runCli(['-p', 'x', '--resume', 'nope', '--attach'], sb.env, { cwd: sb.dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual(['yagent: no session "nope" in this workspace (list them with `yagent sessions`)']);
    const mem = await api('GET', `/api/memory?task=${follow.task_id}`);
    expect(mem.status).toBe(200);
    expect(JSON.stringify(mem.json.memory)).toContain('answer two');
    const users = await api('GET', `/api/memory/user?task=${follow.task_id}`);
    const roles = (users.json.messages as { role: string; content: string }[]).map((m) => m.role);
    expect(roles.length).toBeGreaterThan(1);
    expect(new Set(roles)).toEqual(new Set(['user']));
    expect((await api('GET', `/api/memory/bogus?task=${follow.task_id}`)).status).toBe(400);
    // a malformed escape in the path is the client's error (it was a 500)
    expect((await api('GET', `/api/memory/%E0%A4%A?task=${follow.task_id}`)).status).toBe(400);
    const shown = await runCli(['attach', 'memory', first], sb.env);
    expect(shown.stdout).toMatch(/assistant: answer one/);
    const loaded = await api('POST', '/api/load_task', { task_id: first });
    expect(loaded.status).toBe(200);
    expect(JSON.stringify(loaded.json.memory)).toContain('first question');
    expect(loaded.json.session_id).toBe(first);
    expect((await api('DELETE', `/api/memory?task=${follow.task_id}`)).json.deleted).toBe(true);
    expect((await api('GET', `/api/memory?task=${follow.task_id}`)).status).toBe(404);
  });

  it('POST /api/send to a running task that ends before its next step: the message becomes the next turn and carries the session', async () => {
    sb = sandbox(GOOD_CONFIG);
    const release = join(sb.dir, 'release');
    const asked = join(sb.dir, 'asked');
    const log = join(sb.dir, 'followup.log');
    const src = `
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
const all = (req) => JSON.stringify(req.body.messages || []);
const step = async (req) => {
  if (all(req).includes('follow up')) { appendFileSync(${JSON.stringify(log)}, all(req) + '\\n'); return { text: 'answer two', finishReason: 'stop' }; }
  writeFileSync(${JSON.stringify(asked)}, 'x');
  while (!existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20));
  return { text: 'answer one', finishReason: 'stop' };
};
export default { director: Array.from({ length: 20 }, () => step) };
`;
    const serve = start(['serve'], withScript(sb, src));
    children.push(serve);
    const { call, get, outcome } = serveClient(await discovered(sb));
    const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => (await call(method, path, body)).json;
    const first = (await api('POST', '/api/start_task', { prompt: 'first question', workspace: sb.dir })).task_id as string;
    await until(() => (existsSync(asked) ? true : undefined), 'the first model request', SERVE_WAIT_MS);
    // the running turn takes it at its next step; this one answers without another step, so it is the next turn
    const sent = await api('POST', '/api/send', { task_id: first, message: 'follow up' });
    expect(sent).toMatchObject({ task_id: first, follows: first, delivered: 'next_step' });
    expect(existsSync(log)).toBe(false); // nothing of the follow-up ran while the turn runs
    writeFileSync(release, 'go');
    expect((await outcome(first)).text).toBe('answer one');
    const next = await until(async () => (await get<{ tasks: { taskId: string; prompt: string }[] }>('/api/task_status')).tasks.find((t) => t.prompt === 'follow up'), 'the next turn', SERVE_WAIT_MS);
    expect((await outcome(next.taskId)).text).toBe('answer two');
    const firstOfTurn2 = readFileSync(log, 'utf8').split('\n')[0] ?? '';
    expect(firstOfTurn2).toContain('first question');
    expect(firstOfTurn2).toContain('answer one');
    expect((await call('POST', '/api/send', { task_id: 'nope', message: 'x' })).status).toBe(404);
  });

  it('attach pause TASK AGENT pauses one delegation at its step boundary (the task stays running); continue lets it go on', async () => {
    sb = sandbox(GOOD_CONFIG);
    const mark1 = join(sb.dir, 'coding-1');
    const release = join(sb.dir, 'release');
    const mark2 = join(sb.dir, 'coding-2');
    writeFileSync(join(sb.dir, 'x.txt'), 'x\n');
    const src = `
import { existsSync, writeFileSync } from 'node:fs';
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const first = async () => { writeFileSync(${JSON.stringify(mark1)}, 'x'); while (!existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20)); return call('read_file', { path: 'x.txt' }); };
const second = () => { writeFileSync(${JSON.stringify(mark2)}, String(Date.now())); return call('agent_exit', { conclusion: 'read it', facts: [], artifacts: [], status: 'ok' }); };
export default { director: [call('delegate_coding', { task: 'read x.txt', context_refs: [] }), { text: 'done', finishReason: 'stop' }], coding: [first, second] };
`;
    const serve = start(['serve'], withScript(sb, src));
    children.push(serve);
    const { post, outcome } = serveClient(await discovered(sb));
    const task = (await post('/api/start_task', { prompt: 'go', workspace: sb.dir })).json.task_id as string;
    await until(() => (existsSync(mark1) ? true : undefined), 'the first Coding request', SERVE_WAIT_MS);
    const paused = await runCli(['attach', 'pause', task, 'coding', '--json'], sb.env);
    expect(paused.code).toBe(0);
    expect((JSON.parse(paused.stdout) as { actors: string[]; state: string }).actors).toEqual([expect.stringMatching(/^delegation:.+:coding$/)]);
    expect((JSON.parse(paused.stdout) as { state: string }).state).toBe('running');
    writeFileSync(release, 'go');
    await new Promise((r) => setTimeout(r, 500)); // a paused Coding must not reach its next model call meanwhile
    expect(existsSync(mark2)).toBe(false);
    const continuedAt = Date.now();
    expect((await runCli(['attach', 'continue', task, 'coding'], sb.env)).code).toBe(0);
    expect((await outcome(task)).text).toBe('done');
    expect(Number(readFileSync(mark2, 'utf8'))).toBeGreaterThanOrEqual(continuedAt);
    expect((await runCli(['attach', 'pause', task, 'nobody'], sb.env)).code).toBe(1);
  });
});
