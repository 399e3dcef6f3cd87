// attach output is for people by default and JSON with --json: `cancel` says cancelled once the task stopped,
// `approvals` names the asking agent, `logs` never cuts an approval's reason, `timeline` is readable lines (status
// changes, delegations, notes, the Director's review of each delegation's output) ending with a newline and paged.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childReaper, discovered, GOOD_CONFIG, runCli, sandbox, start, until, SERVE_WAIT_MS, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
const children = childReaper();
afterEach(() => {
  children.reap();
  sb?.cleanup();
});

const script = (target: string): string => `${PRELUDE}
const director = (req) => {
  if (firstUser(req).includes('STALL')) return { text: 'thinking…', fault: { kind: 'stall', afterEvents: 1 } };
  return lastTool(req) ? say('Coding finished.') : call('delegate_coding', { task: 'write the report file', context_refs: [] });
};
export default {
  director: times(20, director),
  coding: [
    call('create_file', { path: ${JSON.stringify(target)}, content: 'written after approval\\n' }),
    call('agent_exit', { conclusion: 'wrote the report', facts: [], artifacts: [], status: 'ok' }),
  ],
};
`;

describe('attach output', () => {
  it('approvals name the agent, logs keep the whole reason, timeline is readable and paged, cancel says cancelled', { timeout: 90_000 }, async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    const target = join(s.dir, 'outside', 'report.txt');
    children.push(start(['serve'], withScript(s, script(target))));
    const info = await discovered(s);
    const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };
    const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> =>
      (await (await fetch(`${info.address}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json()) as Record<string, unknown>;
    const ws = join(s.dir, 'ws');
    mkdirSync(ws, { recursive: true });
    const task = (await api('POST', '/api/start_task', { prompt: 'write the report', workspace: ws })).task_id as string;

    const json = await until(async () => {
      const r = await runCli(['attach', 'approvals', '--json'], s.env);
      const list = (JSON.parse(r.stdout || '{"approvals":[]}') as { approvals: { delegationId: string; request: { requestId: string; question: string } }[] }).approvals;
      return list[0];
    }, 'a pending approval', SERVE_WAIT_MS);
    const question = json.request.question.replace(/\s+/g, ' ').trim();
    expect(question.length).toBeGreaterThan(0);
    const text = await runCli(['attach', 'approvals'], s.env);
    expect(text.stdout).toBe(`${json.request.requestId}  task ${task}  coding (delegation ${json.delegationId}) needs approval for create_file: ${question}\n`);
    // logs: the approval line carries the whole reason (the JSON's question), never cut
    const logs = await runCli(['attach', 'logs', task], s.env);
    expect(logs.stdout).toContain(`coding needs approval [${json.request.requestId}]: ${question}\n`);

    expect((await runCli(['attach', 'approve', json.request.requestId], s.env)).code).toBe(0);
    await until(async () => ((await api('GET', `/api/task_status?task=${task}`)).outcome as unknown) ?? undefined, 'the task to end', SERVE_WAIT_MS);

    const timeline = await runCli(['attach', 'timeline', task], s.env);
    expect(timeline.stdout.endsWith('\n')).toBe(true);
    const lines = timeline.stdout.trimEnd().split('\n');
    const kinds = lines.map((l) => l.replace(/^\d\d:\d\d:\d\d {2}/, '').replace(/ +/g, ' '));
    // newest first: done, the review, the delegation's end and its note, its start, started
    expect(kinds[0]).toBe('status running → done');
    expect(kinds.find((k) => k.startsWith('review'))).toMatch(/^review director on coding's \S+: Coding finished\.$/);
    expect(kinds).toContainEqual(expect.stringMatching(/^note coding wrote \S+ \(ok\): wrote the report$/));
    expect(kinds).toContainEqual(expect.stringMatching(/^delegate coding ended: ok \(call \S+\)$/));
    expect(kinds).toContainEqual(expect.stringMatching(/^delegate coding started \(call \S+\)$/));
    expect(kinds.at(-1)).toBe('status started');
    expect(timeline.stdout).not.toContain('{');

    // GET /api/timeline pages: offset, total, has_more; the text says how to read the older ones
    const page = await api('GET', `/api/timeline?task=${task}&limit=2&offset=1`);
    expect(page).toMatchObject({ offset: 1, total: lines.length, has_more: lines.length > 3 });
    expect((page.entries as unknown[]).length).toBe(2);
    const paged = await runCli(['attach', 'timeline', task, '--limit', '2'], s.env);
    expect(paged.stdout).toContain(`… ${lines.length - 2} older: yagent attach timeline ${task} --offset 2\n`);
    const pagedJson = JSON.parse((await runCli(['attach', 'timeline', task, '--limit', '2', '--json'], s.env)).stdout) as { has_more: boolean };
    expect(pagedJson.has_more).toBe(true);

    // cancel: says cancelled once the task has stopped, and the timeline says so too
    const stalled = (await api('POST', '/api/start_task', { prompt: 'STALL here', workspace: ws })).task_id as string;
    await until(async () => ((await runCli(['attach', 'logs', stalled], s.env)).stdout.includes('thinking') || (await api('GET', `/api/task_status?task=${stalled}`)).state === 'running' ? true : undefined), 'the stalled task', SERVE_WAIT_MS);
    const cancelled = await runCli(['attach', 'cancel', stalled], s.env);
    expect(cancelled.stdout).toBe(`${stalled}: cancelled\n`);
    expect((await runCli(['attach', 'timeline', stalled], s.env)).stdout).toMatch(/status {4}running → cancelled\n/);
  });
});
