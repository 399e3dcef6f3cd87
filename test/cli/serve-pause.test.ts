// Recovery A from attach: `attach pause TASK CALL_ID` pauses one delegation (named by its call id) at its step
// boundary with its timers frozen — paused longer than its idle timeout, it still finishes ok — and `attach pause
// TASK` pauses the whole task (state paused, no model call) until `attach continue TASK`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childReaper, discovered, GOOD_CONFIG, runCli, sandbox, start, until, SERVE_WAIT_MS, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
const children = childReaper();
afterEach(() => {
  children.reap();
  sb?.cleanup();
});

const IDLE_MS = 4000;
const CONFIG = `${GOOD_CONFIG}\n[agent]\ndelegate_idle_timeout = "${IDLE_MS}ms"\n`;

/** Coding's first request waits for `release`; its second (after its read) marks `mark2`. The Director reports
 *  whether the delegation timed out. A second task's Director marks `director2` on each of its requests. */
function script(dir: string): string {
  const f = (n: string): string => JSON.stringify(join(dir, n));
  return `
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
const user = (req) => JSON.stringify((req.body.messages || []).filter((m) => m.role === 'user'));
const tools = (req) => JSON.stringify((req.body.messages || []).filter((m) => m.role === 'tool'));
const wait = async (p) => { while (!existsSync(p)) await new Promise((r) => setTimeout(r, 20)); };
const coding = [
  async () => { writeFileSync(${f('coding-1')}, 'x'); await wait(${f('release')}); return call('read_file', { path: 'x.txt' }); },
  () => { writeFileSync(${f('coding-2')}, String(Date.now())); return call('agent_exit', { conclusion: 'CODING-READ-DONE', facts: [], artifacts: [], status: 'ok' }); },
];
const director = async (req) => {
  if (user(req).includes('second task')) {
    writeFileSync(${f('director2')}, String(Date.now()));
    await wait(${f('release2')});
    return say('I checked it: second done');
  }
  if (tools(req).includes('delegate') || tools(req).includes('CODING')) return say(tools(req).includes('CODING-READ-DONE') ? 'coding finished' : 'coding failed: ' + tools(req).slice(0, 300));
  return call('delegate_coding', { task: 'read x.txt', context_refs: [] });
};
export default { director: Array.from({ length: 20 }, () => director), coding };
`;
}

describe('attach pause (recovery A)', () => {
  it('pause TASK CALL_ID freezes one delegation past its idle timeout; pause TASK holds the whole task', { timeout: 90_000 }, async () => {
    sb = sandbox(CONFIG);
    const s = sb;
    const at = (n: string): string => join(s.dir, n);
    writeFileSync(at('x.txt'), 'x\n');
    const serve = start(['serve'], withScript(s, script(s.dir)));
    children.push(serve);
    const info = await discovered(s);
    const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };
    const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> =>
      (await (await fetch(`${info.address}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json()) as Record<string, unknown>;
    const outcome = (id: string) => until(async () => ((await api('GET', `/api/task_status?task=${id}`)).outcome as { text: string } | null) ?? undefined, `task ${id}`, SERVE_WAIT_MS);
    const task = (await api('POST', '/api/start_task', { prompt: 'first task', workspace: s.dir })).task_id as string;
    await until(() => (existsSync(at('coding-1')) ? true : undefined), 'the first Coding request', SERVE_WAIT_MS);
    const tree = JSON.stringify(await api('GET', '/api/tree'));
    const callId = /delegation:([^:"]+):coding/.exec(tree)?.[1];
    expect(callId).toBeDefined();

    const paused = await runCli(['attach', 'pause', task, callId ?? '', '--json'], s.env);
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ actors: [`delegation:${callId}:coding`], state: 'running' });
    writeFileSync(at('release'), 'go');
    // paused for longer than its idle timeout: a clock that kept running would end it with idle_timeout. A real
    // wait: the timer under test runs in the serve process, out of this test's reach.
    await new Promise((r) => setTimeout(r, IDLE_MS + 1500));
    expect(existsSync(at('coding-2'))).toBe(false);
    const continuedAt = Date.now();
    expect((await runCli(['attach', 'continue', task, callId ?? ''], s.env)).code).toBe(0);
    expect((await outcome(task)).text).toBe('coding finished');
    expect(Number(readFileSync(at('coding-2'), 'utf8'))).toBeGreaterThanOrEqual(continuedAt);

    // the whole task: paused before its Director's first model call returns, held at the next step
    const second = (await api('POST', '/api/start_task', { prompt: 'second task', workspace: s.dir })).task_id as string;
    await until(() => (existsSync(at('director2')) ? true : undefined), 'the second Director request', SERVE_WAIT_MS);
    const whole = await runCli(['attach', 'pause', second, '--json'], s.env);
    expect(whole.code).toBe(0);
    expect(JSON.parse(whole.stdout)).toMatchObject({ state: 'paused' });
    expect((await api('GET', `/api/task_status?task=${second}`)).state).toBe('paused');
    const askedAt = readFileSync(at('director2'), 'utf8');
    writeFileSync(at('release2'), 'go');
    // its plain answer claims work no delegation did, so it is reminded (another model call): none while paused
    await new Promise((r) => setTimeout(r, 1000));
    expect(readFileSync(at('director2'), 'utf8')).toBe(askedAt);
    const resumedAt = Date.now();
    expect((await runCli(['attach', 'continue', second], s.env)).code).toBe(0);
    expect((await outcome(second)).text).toBe('I checked it: second done');
    expect(Number(readFileSync(at('director2'), 'utf8'))).toBeGreaterThanOrEqual(resumedAt);
  });
});
