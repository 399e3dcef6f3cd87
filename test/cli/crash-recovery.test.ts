// Issue 24 items 5 and 7 through the real CLI (real workers, processes, git and store; only the model is scripted):
// a Director whose worker dies mid-turn is restarted and the turn finishes; a delegation killed by kill -9 before
// any checkpoint is checked against the workspace it started on before it is replayed. A worker thread cannot be
// crashed from outside the process (a signal ends the whole CLI), so the scripted model's test-only crash_worker
// fault ends the Director's worker, as an uncaught throw or an OOM of that worker would.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markedBy, markOf, procStartTime } from '../../src/runtime/owner-mark.js';
import { groupMembers } from '../runtime/proc-helpers.js';
import { childReaper, collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
const reaper = childReaper();
afterEach(() => {
  reaper.reap();
  sb?.cleanup();
});

const all = `const all = (req) => JSON.stringify(req.body.messages || []);`;

/** Coding appends one line and exits; the Director's call after the delegation's result crashes its own worker once
 *  (the scripted model's crash_worker fault: the worker ends with no stop hook, as an OOM would). Each Director
 *  request is logged to \`log\` (the fake model runs in the CLI process). */
function directorCrash(side: string, crashed: string, log: string): string {
  return `${PRELUDE}
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
${all}
const director = (req) => {
  appendFileSync(${JSON.stringify(log)}, '.');
  if (!all(req).includes('side effect done once')) return call('delegate_coding', { task: 'run the side effect', context_refs: [] });
  if (!existsSync(${JSON.stringify(crashed)})) { writeFileSync(${JSON.stringify(crashed)}, 'yes'); return { fault: { kind: 'crash_worker' } }; }
  return say('all done after the restart');
};
const coding = (req) => (req.body.messages || []).some((m) => m.role === 'tool')
  ? call('agent_exit', { conclusion: 'side effect done once', facts: [], artifacts: [], status: 'ok' })
  : call('run_bash', { command: 'echo ran >> ${side}', is_dangerous: false });
export default { director: times(20, director), coding: times(20, coding) };
`;
}

/** Coding appends one line, then (first process) stalls, announcing it in \`stalled\`; resumed, it would finish. The
 *  Director answers with the degraded report's reason when it gets one, else with what the delegation said. */
function killedDelegation(side: string, stalled: string, codingLog: string): string {
  return `${PRELUDE}
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
${all}
const coding = (req) => {
  appendFileSync(${JSON.stringify(codingLog)}, '.');
  if (!(req.body.messages || []).some((m) => m.role === 'tool')) return call('run_bash', { command: 'echo ran >> ${side}', is_dangerous: false });
  if (!existsSync(${JSON.stringify(stalled)})) { writeFileSync(${JSON.stringify(stalled)}, 'yes'); return { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }; }
  return call('agent_exit', { conclusion: 'replayed to the end', facts: [], artifacts: [], status: 'ok' });
};
const director = (req) => {
  const m = all(req).match(/the workspace changed since [^)]*\\)/);
  if (m) return say('report: ' + m[0]);
  if (all(req).includes('replayed to the end')) return say('replayed');
  return call('delegate_coding', { task: 'run the side effect', context_refs: [] });
};
export default { director: times(20, director), coding: times(20, coding) };
`;
}

function codingRollouts(root: string): string[] {
  return readdirSync(root).flatMap((d) => readdirSync(join(root, d)).filter((f) => f.endsWith('_coding.jsonl')).map((f) => join(root, d, f)));
}

const size = (file: string): number => (existsSync(file) ? readFileSync(file).length : 0);

describe.skipIf(process.platform !== 'linux')('crash recovery through the CLI', () => {
  it('the Director worker dies mid-turn: it is restarted from its rollout, the turn finishes, nothing re-runs, no process is left', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const side = join(ws, 'side.txt');
    const log = join(sb.dir, 'director-asked');
    const env = withScript(sb, directorCrash(side, join(sb.dir, 'crashed'), log));
    const child = start(['-p', 'do the work', '-y', '--output-format', 'stream-json'], env, { cwd: ws, detached: true });
    reaper.push(child);
    const pid = child.pid ?? -1;
    const mark = markOf(pid, procStartTime(pid) ?? '');
    const r = await collect(child);
    expect(r.stderr).not.toMatch(/not restarted|panic/);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
    expect(lines.at(-1)).toMatchObject({ type: 'result', data: { result: 'all done after the restart' } });
    const restarts = lines.filter((l) => l.type === 'delegation_restarted').map((l) => l.data);
    expect(restarts).toEqual([expect.objectContaining({ child: 'director', attempt: 1, reason: expect.stringMatching(/ACTOR_/) })]);
    expect(readFileSync(side, 'utf8')).toBe('ran\n'); // the delegation's result came from the ledger, not a second run
    expect(size(log)).toBe(3); // delegate, the crashed call, the restarted incarnation's answer
    // the CLI led its own process group: nothing of it, nor anything carrying its owner mark, outlives it
    await until(() => (groupMembers(pid).filter((m) => m.state !== 'Z').length === 0 && markedBy(mark).length === 0 ? true : undefined), `no process of the run (pid ${pid})`);
  }, 180_000);

  it('past [resume] max_restarts the turn ends with the degraded report as its answer (exit 1), the session goes on', async () => {
    sb = sandbox(`${GOOD_CONFIG}\n[resume]\nmax_restarts = 0\n`);
    const ws = project(sb);
    const side = join(ws, 'side.txt');
    const env = withScript(sb, directorCrash(side, join(sb.dir, 'crashed'), join(sb.dir, 'director-asked')));
    const r = await runCli(['-p', 'do the work', '-y'], env, { cwd: ws });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^The Director crashed 1 time \(last: ACTOR_\w+[^)]*\) and was not restarted: \[resume\] max_restarts = 0\.\nWhat its ledger holds:\nTools run: delegate_coding ×1/);
    expect(r.stderr).toMatch(/stop reason: panic/);
    // the next turn continues the session: the crashed turn's delegation result is in its conversation, not re-run
    const next = await runCli(['-p', 'go on', '--continue', '-y'], env, { cwd: ws });
    expect(next.code).toBe(0);
    expect(next.stdout.trim()).toBe('all done after the restart');
    expect(readFileSync(side, 'utf8')).toBe('ran\n');
  }, 180_000);

  it('a delegation killed (kill -9) before any checkpoint is not replayed onto a moved HEAD: --continue gives its report', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: ws, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    const before = git('rev-parse', 'HEAD');
    const side = join(ws, 'side.txt');
    const stalled = join(sb.dir, 'stalled');
    const codingLog = join(sb.dir, 'coding-asked');
    const env = withScript(sb, killedDelegation(side, stalled, codingLog));
    const child = start(['-p', 'do the work', '-y'], env, { cwd: ws });
    reaper.push(child);
    const done = collect(child);
    await until(() => (existsSync(stalled) ? true : undefined), 'the second round of the Coding delegation', 120_000);
    child.kill('SIGKILL'); // no stop hook ran: the delegation's rollout holds no checkpoint
    await done;
    const coding = codingRollouts(join(sb.home, 'data', 'rollout'));
    expect(coding).toHaveLength(1);
    expect(coding.map((f) => readFileSync(f, 'utf8').includes('"agent_checkpoint"'))).toEqual([false]);
    git('commit', '-q', '--allow-empty', '-m', 'two'); // the user moved on while the session was stopped
    const asked = size(codingLog);
    const r = await runCli(['-p', 'please continue', '--continue', '-y'], env, { cwd: ws });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`report: the workspace changed since it started (HEAD moved from ${before.slice(0, 12)} to ${git('rev-parse', 'HEAD').slice(0, 12)})`);
    expect(size(codingLog)).toBe(asked); // no replay: Coding was not asked again
    expect(readFileSync(side, 'utf8')).toBe('ran\n');
  }, 180_000);
});
