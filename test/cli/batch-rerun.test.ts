// Issue 24 item 6, through the real CLI: a batch re-run continues each interrupted task's session (its recorded tool
// calls are not run again), retries failed tasks (`--no-retry-failed` skips them), and exits 1 while any task failed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childReaper, collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
const reaper = childReaper();
afterEach(() => {
  reaper.reap();
  sb?.cleanup();
});

const lines = (file: string): { id: string; status: string; result: string }[] =>
  readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { id: string; status: string; result: string });

/** A FLAKY task's model refuses every request (400) until `flag` exists; `log` gets each task's first request. */
function flaky(flag: string, log: string): string {
  return `${PRELUDE}
import { appendFileSync, existsSync } from 'node:fs';
const step = (req) => {
  if ((req.body.messages || []).filter((m) => m.role === 'assistant').length === 0) appendFileSync(${JSON.stringify(log)}, firstUser(req) + '\\n');
  if (firstUser(req).includes('FLAKY') && !existsSync(${JSON.stringify(flag)})) return { fault: { kind: 'status', status: 400, message: 'scripted refusal' } };
  return say('answer to: ' + firstUser(req));
};
export default { director: times(200, step) };
`;
}

/** Coding runs one side effect, then stalls (announced in \`stalled\`) until \`flag\` exists; the Director delegates once. */
function killable(side: string, stalled: string, flag: string): string {
  return `${PRELUDE}
import { existsSync, writeFileSync } from 'node:fs';
const all = (req) => JSON.stringify(req.body.messages || []);
const coding = (req) => {
  const tools = (req.body.messages || []).filter((m) => m.role === 'tool').length;
  if (tools === 0) return call('run_bash', { command: 'echo ran >> ${side}', is_dangerous: false });
  if (!existsSync(${JSON.stringify(flag)})) { writeFileSync(${JSON.stringify(stalled)}, 'yes'); return { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }; }
  return call('agent_exit', { conclusion: 'side effect done once', facts: [], artifacts: [], status: 'ok' });
};
const director = (req) => all(req).includes('side effect done once') ? say(all(req).includes('interrupted before it finished') ? 'all done, continued' : 'all done') : call('delegate_coding', { task: 'run the side effect', context_refs: [] });
export default { director: times(20, director), coding: times(20, coding) };
`;
}

describe('batch re-runs', () => {
  it('a failed task fails the batch (exit 1); --no-retry-failed leaves it failed; a plain re-run retries it and only it', async () => {
    sb = sandbox(GOOD_CONFIG);
    const tasks = join(sb.dir, 'tasks.jsonl');
    const out = join(sb.dir, 'results.jsonl');
    const flag = join(sb.dir, 'fixed');
    const log = join(sb.dir, 'first-requests.log');
    writeFileSync(tasks, ['{"id":"a","prompt":"first task"}', '{"id":"b","prompt":"second task FLAKY"}'].join('\n'));
    const env = withScript(sb, flaky(flag, log));
    const r1 = await runCli(['batch', tasks, '--out', out], env);
    expect(r1.code).toBe(1);
    expect(lines(out).map((l) => `${l.id}:${l.status}`).sort()).toEqual(['a:ok', 'b:error']);
    writeFileSync(flag, 'yes');
    const r2 = await runCli(['batch', tasks, '--out', out, '--no-retry-failed'], env);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/1 failed earlier and not retried \(b\)/);
    expect(lines(out)).toHaveLength(2);
    const r3 = await runCli(['batch', tasks, '--out', out], env);
    expect(r3.code).toBe(0);
    expect(lines(out).map((l) => `${l.id}:${l.status}`)).toEqual([expect.any(String), expect.any(String), 'b:ok']);
    expect(lines(out).at(-1)?.result).toBe('answer to: second task FLAKY');
    // "a" ran once in all; "b" was asked in run 1 and run 3 only
    const asked = readFileSync(log, 'utf8').trim().split('\n');
    expect(asked.filter((p) => p === 'first task')).toHaveLength(1);
    expect(asked.filter((p) => p === 'second task FLAKY').length).toBeGreaterThanOrEqual(2);
  }, 180_000);

  it('kill -9 of a batch mid-task, then a re-run: the task continues its session and its run_bash is not run again', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const side = join(ws, 'side.txt');
    const stalled = join(sb.dir, 'stalled');
    const flag = join(sb.dir, 'resumed');
    const tasks = join(sb.dir, 'tasks.jsonl');
    const out = join(sb.dir, 'results.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 'k', prompt: 'do the work', workspace: ws, options: { yolo: true } })}\n`);
    const env = withScript(sb, killable(side, stalled, flag));
    const child = start(['batch', tasks, '--out', out], env);
    reaper.push(child);
    const done = collect(child);
    await until(() => (existsSync(stalled) ? true : undefined), 'the Coding delegation after its run_bash', 120_000);
    child.kill('SIGKILL');
    await done;
    expect(readFileSync(side, 'utf8')).toBe('ran\n');
    expect(existsSync(out) ? lines(out) : []).toEqual([]);
    writeFileSync(flag, 'yes');
    const r = await runCli(['batch', tasks, '--out', out], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/k: continuing its interrupted session task-batch-/);
    expect(lines(out)).toEqual([expect.objectContaining({ id: 'k', status: 'ok', result: 'all done, continued' })]);
    expect(readFileSync(side, 'utf8')).toBe('ran\n');
  }, 180_000);
});
