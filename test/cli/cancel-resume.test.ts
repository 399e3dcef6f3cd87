// Cancel means cancel (issue 24): work the user stopped is recorded as cancelled and never resumed by recovery on the
// next turn; the next turn's Director is told what the cancelled work did and that the user stopped it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema } from '../../bin/cli/stream-json.js';
import { childReaper, collect, discovered, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
const reaper = childReaper();
afterEach(() => {
  reaper.reap();
  sb?.cleanup();
});

/** Coding runs five shell steps, one per call; in the first process its third call stalls (announced in `stalled`),
 *  so a Ctrl-C lands after step 2. Once `later` exists, every request is logged: Director's to `dirLog`, Coding's to
 *  `codingLog` (a resumed Coding would run steps 3–5 there). */
function fiveSteps(out: string, stalled: string, later: string, dirLog: string, codingLog: string): string {
  return `${PRELUDE}
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
const all = (req) => JSON.stringify(req.body.messages || []);
const coding = (req) => {
  if (existsSync(${JSON.stringify(later)})) appendFileSync(${JSON.stringify(codingLog)}, all(req) + '\\n');
  const done = (req.body.messages || []).filter((m) => m.role === 'tool').length;
  if (done === 2 && !existsSync(${JSON.stringify(later)})) { writeFileSync(${JSON.stringify(stalled)}, 'yes'); return { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }; }
  if (done < 5) return call('run_bash', { command: 'echo step' + (done + 1) + ' >> ${out}', is_dangerous: false });
  return call('agent_exit', { conclusion: 'five steps done', facts: [], artifacts: [], status: 'ok' });
};
const director = (req) => {
  if (existsSync(${JSON.stringify(later)})) { appendFileSync(${JSON.stringify(dirLog)}, all(req) + '\\n'); return say('unrelated answer'); }
  return call('delegate_coding', { task: 'run the five steps', context_refs: [] });
};
export default { director: times(20, director), coding: times(20, coding) };
`;
}

describe('cancel means cancel (CLI)', () => {
  it('Ctrl-C after step 2 of a Coding delegation, then --continue: nothing of it runs again; the Director is told it was cancelled', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const out = join(ws, 'steps.txt');
    const [stalled, later, dirLog, codingLog] = ['stalled', 'later', 'director.log', 'coding.log'].map((f) => join(sb?.dir ?? '', f));
    const env = withScript(sb, fiveSteps(out, stalled ?? '', later ?? '', dirLog ?? '', codingLog ?? ''));
    const child = start(['-p', 'run the five steps', '-y', '--output-format', 'json'], env, { cwd: ws });
    reaper.push(child);
    const done = collect(child);
    await until(() => (existsSync(stalled ?? '') ? true : undefined), 'the stalled third coding call', 90_000);
    child.kill('SIGINT');
    const cancelled = await done;
    expect(cancelled.code).toBe(130);
    expect(ResultObjectSchema.parse(JSON.parse(cancelled.stdout)).stop_reason).toBe('cancelled');
    expect(readFileSync(out, 'utf8')).toBe('step1\nstep2\n');

    writeFileSync(later ?? '', 'yes');
    const next = await runCli(['-p', 'an unrelated question', '-y', '--continue', '--output-format', 'json'], env, { cwd: ws });
    expect(next.code).toBe(0);
    expect(ResultObjectSchema.parse(JSON.parse(next.stdout)).result).toBe('unrelated answer');
    expect(readFileSync(out, 'utf8')).toBe('step1\nstep2\n'); // steps 3–5 never ran
    expect(existsSync(codingLog ?? '')).toBe(false); // no Coding request at all: nothing was resumed
    const first = readFileSync(dirLog ?? '', 'utf8').split('\n')[0] ?? '';
    expect(first).toContain('an unrelated question');
    expect(first).toMatch(/cancelled by the user/);
    expect(first).toMatch(/run_bash ×2/);
    expect(first).toContain('echo step2');
  }, 180_000);

  it('serve: `attach cancel` after step 2, then `attach send`: the next turn runs nothing of it and is told it was cancelled', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const out = join(ws, 'steps.txt');
    const [stalled, later, dirLog, codingLog] = ['stalled', 'later', 'director.log', 'coding.log'].map((f) => join(sb?.dir ?? '', f));
    const serve = start(['serve', '-y'], withScript(sb, fiveSteps(out, stalled ?? '', later ?? '', dirLog ?? '', codingLog ?? '')));
    reaper.push(serve);
    const info = await discovered(sb);
    const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const r = await fetch(`${info.address}${path}`, { method, headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return (await r.json()) as Record<string, unknown>;
    };
    const outcome = (id: string) => until(async () => ((await api('GET', `/api/task_status?task=${id}`)).outcome as { text: string; stop_reason?: string; stopReason?: string } | null) ?? undefined, `task ${id}`, 90_000);
    const task = (await api('POST', '/api/start_task', { prompt: 'run the five steps', workspace: ws })).task_id as string;
    await until(() => (existsSync(stalled ?? '') ? true : undefined), 'the stalled third coding call', 90_000);
    const cancel = await runCli(['attach', 'cancel', task], sb.env);
    expect(cancel.code).toBe(0);
    expect(JSON.stringify(await outcome(task))).toContain('cancelled');
    expect(readFileSync(out, 'utf8')).toBe('step1\nstep2\n');
    writeFileSync(later ?? '', 'yes');
    const sent = await runCli(['attach', 'send', task, 'an unrelated question', '--json'], sb.env);
    expect(sent.code).toBe(0);
    const next = JSON.parse(sent.stdout) as { task_id: string };
    expect((await outcome(next.task_id)).text).toBe('unrelated answer');
    expect(readFileSync(out, 'utf8')).toBe('step1\nstep2\n');
    expect(existsSync(codingLog ?? '')).toBe(false);
    expect(readFileSync(dirLog ?? '', 'utf8').split('\n')[0]).toMatch(/cancelled by the user/);
  }, 240_000);
});
