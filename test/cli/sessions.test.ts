// Sessions end to end through the real CLI (subprocesses, real workers; only the model is scripted):
// two turns of one session, `yagent sessions`, refusals, and SIGKILL of the whole CLI mid-delegation + --continue.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema } from '../../bin/cli/stream-json.js';
import { childReaper, collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { FAILING } from './scripts.js';

let sb: Sandbox | undefined;
const reaper = childReaper();
afterEach(() => {
  reaper.reap();
  sb?.cleanup();
});

const PRELUDE = `
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
const times = (n, step) => Array.from({ length: n }, () => step);
const all = (req) => JSON.stringify(req.body.messages || []);
`;

/** The Director answers each question; every request that carries the second question is logged. */
function twoTurns(log: string): string {
  return `${PRELUDE}
const step = (req) => {
  if (!all(req).includes('second question')) return say('answer one');
  appendFileSync(${JSON.stringify(log)}, all(req) + '\\n');
  return say('answer two');
};
export default { director: times(20, step) };
`;
}

/** Coding runs one side effect, then (first process) stalls, announcing it in \`stalled\`; once \`flag\` exists
 *  (the resumed process) it finishes. The Director delegates once and answers when the delegation's result is in. */
function killable(side: string, stalled: string, flag: string): string {
  return `${PRELUDE}
const coding = (req) => {
  const tools = (req.body.messages || []).filter((m) => m.role === 'tool').length;
  if (tools === 0) return call('run_bash', { command: 'echo ran >> ${side}', is_dangerous: false });
  if (!existsSync(${JSON.stringify(flag)})) { writeFileSync(${JSON.stringify(stalled)}, 'yes'); return { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }; }
  return call('agent_exit', { conclusion: 'side effect done once', facts: [], artifacts: [], status: 'ok' });
};
const director = (req) => all(req).includes('side effect done once') ? say('all done') : call('delegate_coding', { task: 'run the side effect', context_refs: [] });
export default { director: times(20, director), coding: times(20, coding) };
`;
}

describe('sessions (CLI)', () => {
  it('two headless turns in one session: the second model request carries the first turn', async () => {
    sb = sandbox(GOOD_CONFIG);
    const log = join(sb.dir, 'second.log');
    const env = withScript(sb, twoTurns(log));
    const ws = project(sb);
    const r1 = await runCli(['-p', 'first question', '--output-format', 'json'], env, { cwd: ws });
    expect(r1.code).toBe(0);
    const o1 = ResultObjectSchema.parse(JSON.parse(r1.stdout));
    expect(o1.session_id).toBeTruthy();
    const r2 = await runCli(['-p', 'second question', '--resume', o1.session_id ?? '', '--output-format', 'json'], env, { cwd: ws });
    expect(r2.code).toBe(0);
    const o2 = ResultObjectSchema.parse(JSON.parse(r2.stdout));
    expect(o2).toMatchObject({ result: 'answer two', session_id: o1.session_id });
    const firstOfTurn2 = readFileSync(log, 'utf8').split('\n')[0] ?? '';
    expect(firstOfTurn2).toContain('first question');
    expect(firstOfTurn2).toContain('answer one');
    const list = await runCli(['sessions', '--json'], sb.env, { cwd: ws });
    const { sessions } = JSON.parse(list.stdout) as { sessions: { sessionId: string; turns: number; lastPrompt: string; stopReason: string }[] };
    expect(sessions[0]).toMatchObject({ sessionId: o1.session_id, turns: 2, lastPrompt: 'second question', stopReason: 'plain_text' });
    const text = await runCli(['sessions'], sb.env, { cwd: ws });
    const [head, row] = text.stdout.trim().split('\n');
    expect(head?.split(/\s{2,}/)).toEqual(['SESSION', 'STARTED (UTC)', 'TURNS', 'STOP', 'TOKENS', 'LAST PROMPT']);
    expect(row?.split(/\s{2,}/)).toEqual([o1.session_id, expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), '2', 'plain_text', expect.stringMatching(/^[1-9]\d*$/), 'second question']);
    // --continue takes the most recent session of the workspace (a newer, unrelated one first)
    expect((await runCli(['-p', 'unrelated question'], env, { cwd: ws })).code).toBe(0);
    const r3 = await runCli(['-p', 'third question', '--continue', '--output-format', 'stream-json'], env, { cwd: ws });
    const lines = r3.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data: { session_id?: string; result?: string } });
    const newest = (JSON.parse((await runCli(['sessions', '--json'], sb.env, { cwd: ws })).stdout) as { sessions: { sessionId: string; turns: number }[] }).sessions[0];
    expect(newest?.turns).toBe(2);
    expect(newest?.sessionId).not.toBe(o1.session_id);
    expect(lines[0]?.data.session_id).toBe(newest?.sessionId);
    expect(lines.at(-1)?.data.session_id).toBe(newest?.sessionId);
  });

  it('an unknown session, and --continue with none, are exit 1 with the reason in one line; --fork needs a session', async () => {
    sb = sandbox(GOOD_CONFIG);
    const env = withScript(sb, twoTurns(join(sb.dir, 'l')));
    const ws = project(sb);
    const r = await runCli(['-p', 'x', '--resume', 'nope'], env, { cwd: ws });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^yagent: no session "nope" in this workspace \(list them with `yagent sessions`\)$/)]);
    const none = await runCli(['-p', 'x', '--continue', '--output-format', 'json'], env, { cwd: ws });
    expect(none.code).toBe(1);
    expect(none.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^yagent: no session to continue in this workspace/)]);
    const bad = await runCli(['-p', 'x', '--fork'], sb.env, { cwd: ws });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--fork needs --resume/);
  });

  it('an llm_error turn, then --continue: the session goes on and the request carries turn 1, marked; --fork copies it', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const failed = await runCli(['-p', 'first question', '--output-format', 'json'], withScript(sb, FAILING), { cwd: ws });
    expect(failed.code).toBe(1);
    const id = ResultObjectSchema.parse(JSON.parse(failed.stdout)).session_id ?? '';
    expect(id).not.toBe('');
    const log = join(sb.dir, 'second.log');
    const env = withScript(sb, twoTurns(log));
    const continued = await runCli(['-p', 'second question', '--continue', '--output-format', 'json'], env, { cwd: ws });
    expect(continued.code).toBe(0);
    expect(ResultObjectSchema.parse(JSON.parse(continued.stdout))).toMatchObject({ result: 'answer two', session_id: id });
    const carried = readFileSync(log, 'utf8').split('\n')[0] ?? '';
    expect(carried).toContain('first question');
    expect(carried).toMatch(/The previous turn \(\\"first question\\"\) stopped with llm_error before it finished/);
    const forked = await runCli(['-p', 'second question', '--resume', id, '--fork', '--output-format', 'json'], env, { cwd: ws });
    expect(forked.code).toBe(0);
    const fork = ResultObjectSchema.parse(JSON.parse(forked.stdout));
    expect(fork.result).toBe('answer two');
    expect(fork.session_id).not.toBe(id);
    expect(readFileSync(log, 'utf8').split('\n')[1]).toContain('first question'); // the copy carries the old turn
    const { sessions } = JSON.parse((await runCli(['sessions', '--json'], sb.env, { cwd: ws })).stdout) as { sessions: { sessionId: string; turns: number; forkedFrom?: string; stopReason: string }[] };
    expect(sessions.find((x) => x.sessionId === fork.session_id)).toMatchObject({ turns: 1, forkedFrom: id, stopReason: 'plain_text' });
    expect(sessions.find((x) => x.sessionId === id)).toMatchObject({ turns: 2, stopReason: 'plain_text' });
  });

  it('SIGKILL of the whole CLI between tool rounds of a Coding delegation, then --resume: it continues, nothing re-runs', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const side = join(ws, 'side.txt');
    const stalled = join(sb.dir, 'stalled');
    const flag = join(sb.dir, 'resumed');
    const env = withScript(sb, killable(side, stalled, flag));
    const child = start(['-p', 'do the work', '-y', '--output-format', 'stream-json'], env, { cwd: ws });
    reaper.push(child);
    const done = collect(child);
    // the event: the model was asked for the next round (the tool's result is in memory, maybe not yet on disk)
    await until(() => (existsSync(stalled) ? true : undefined), 'the second round of the Coding delegation', 120_000);
    child.kill('SIGKILL');
    const killed = await done;
    expect(readFileSync(side, 'utf8')).toBe('ran\n');
    // stream-json's first line names the session: what the user passes to --resume after the crash
    const first = JSON.parse(killed.stdout.split('\n')[0] ?? '') as { type: string; data: { session_id?: string } };
    expect(first.type).toBe('run_start');
    const id = first.data.session_id ?? '';
    expect(id).toMatch(/^task-/);
    writeFileSync(flag, 'yes');
    const r = await runCli(['-p', 'please continue', '-y', '--resume', id, '--output-format', 'json'], env, { cwd: ws });
    expect(r.code).toBe(0);
    expect(ResultObjectSchema.parse(JSON.parse(r.stdout))).toMatchObject({ result: 'all done', session_id: id });
    expect(readFileSync(side, 'utf8')).toBe('ran\n'); // the recorded run_bash was not run again
  }, 180_000); // two whole CLI runs: generous under load, the waits inside are for events
});
