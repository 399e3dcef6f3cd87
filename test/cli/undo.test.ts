// Issue 26, undo end to end through the real CLI, real git and the store actor; only the model is scripted.
import { execFileSync } from 'node:child_process';
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
  sb = undefined;
});

/** Bytes sed rewrites, with a NUL-free binary-ish tail and no final newline: "byte for byte" means all of them. */
const B_TXT = 'keep 1\nold value\n\tkeep 3 \r\nlast';

/** Coding creates a.txt, then rewrites b.txt through the shell (sed), then exits; `stallAfterSed` holds it there. */
function codingScript(stallAfterSed: boolean): string {
  return `${PRELUDE}
export default {
  director: [call('delegate_coding', { task: 'add a.txt and fix b.txt', context_refs: [] }), ...times(6, say('Coding finished.'))],
  coding: [
    call('create_file', { path: 'a.txt', content: 'made by coding\\n' }),
    call('run_bash', { command: "sed -i 's/old value/new value/' b.txt", is_dangerous: false }),
    ${stallAfterSed ? "...times(4, { text: 'x', fault: { kind: 'stall', afterEvents: 1 } })," : ''}
    call('agent_exit', { conclusion: 'done', facts: [], artifacts: ['a.txt', 'b.txt'], status: 'ok' }),
    ...times(3, say('done')),
  ],
};
`;
}

/** Coding edits, then the Director is asked to revert it and calls undo_delegation (no id: the last delegation). */
const DIRECTOR_UNDOES = `${PRELUDE}
export default {
  director: [
    call('delegate_coding', { task: 'add a.txt and fix b.txt', context_refs: [] }),
    call('undo_delegation', {}),
    ...times(6, say('Reverted what coding did.')),
  ],
  coding: [
    call('create_file', { path: 'a.txt', content: 'made by coding\\n' }),
    call('run_bash', { command: "sed -i 's/old value/new value/' b.txt", is_dangerous: false }),
    call('agent_exit', { conclusion: 'done', facts: [], artifacts: ['a.txt', 'b.txt'], status: 'ok' }),
    ...times(3, say('done')),
  ],
};
`;

function gitRepo(s: Sandbox): string {
  const ws = project(s, { 'b.txt': B_TXT, '.gitignore': 'build/\n' });
  const git = (...a: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: s.dir } });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'start');
  return ws;
}

interface Point {
  id: string;
  kind: string;
  agent: string;
  files: string[];
  time: string;
  ended: boolean;
}

async function points(env: NodeJS.ProcessEnv, ws: string): Promise<Point[]> {
  const r = await runCli(['undo', '--json'], env, { cwd: ws });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Point);
}

describe('yagent undo (real CLI, real git)', () => {
  it('undoes a Coding delegation: b.txt (changed with sed) back byte for byte, a.txt gone; the undo can be undone', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = gitRepo(sb);
    const env = withScript(sb, codingScript(false));
    const run = await runCli(['-p', 'add a.txt and fix b.txt', '-y'], env, { cwd: ws });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toContain('new value');
    expect(existsSync(join(ws, 'a.txt'))).toBe(true);

    const list = await points(env, ws);
    const d = list.find((p) => p.kind === 'delegation');
    expect(d).toMatchObject({ agent: 'coding', ended: true });
    expect([...d!.files].sort()).toEqual(['a.txt', 'b.txt']);
    expect(list.find((p) => p.kind === 'turn')).toMatchObject({ agent: 'director', ended: true });
    expect(Number.isNaN(Date.parse(d!.time))).toBe(false);
    const table = await runCli(['undo'], env, { cwd: ws });
    expect(table.stdout).toMatch(new RegExp(`${d!.id}\\s+delegation\\s+coding\\s+2`));

    // not on a terminal and no --yes: nothing happens
    const refused = await runCli(['undo', d!.id], env, { cwd: ws });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--yes/);
    const dry = await runCli(['undo', d!.id, '--dry-run'], env, { cwd: ws });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/-new value\n\+old value/);
    expect(existsSync(join(ws, 'a.txt'))).toBe(true);

    const undo = await runCli(['undo', d!.id, '--yes'], env, { cwd: ws });
    expect(undo.code, undo.stderr).toBe(0);
    expect(readFileSync(join(ws, 'b.txt')).equals(Buffer.from(B_TXT))).toBe(true);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: ws, encoding: 'utf8' })).toBe('');
    expect(execFileSync('git', ['worktree', 'list'], { cwd: ws, encoding: 'utf8' }).trim().split('\n')).toHaveLength(1);

    const redo = (await points(env, ws)).find((p) => p.kind === 'undo');
    expect(redo).toBeDefined();
    expect((await runCli(['undo', redo!.id, '--yes'], env, { cwd: ws })).code).toBe(0);
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toContain('new value');
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('made by coding\n');
  }, 120_000);

  it('a file the user changed after the delegation stops the undo and is named; nothing is written', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = gitRepo(sb);
    const env = withScript(sb, codingScript(false));
    expect((await runCli(['-p', 'go', '-y'], env, { cwd: ws })).code).toBe(0);
    writeFileSync(join(ws, 'b.txt'), 'the user rewrote this\n');
    const d = (await points(env, ws)).find((p) => p.kind === 'delegation')!;
    const r = await runCli(['undo', d.id, '--yes'], env, { cwd: ws });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/b\.txt/);
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('the user rewrote this\n');
    expect(existsSync(join(ws, 'a.txt'))).toBe(true);
  }, 120_000);

  it('the Director undoes the last delegation when asked (undo_delegation), and the undo is listed as undoable', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = gitRepo(sb);
    const env = withScript(sb, DIRECTOR_UNDOES);
    const run = await runCli(['-p', 'add a.txt, then revert what coding just did', '-y', '-v'], env, { cwd: ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/undo_delegation/);
    expect(readFileSync(join(ws, 'b.txt')).equals(Buffer.from(B_TXT))).toBe(true);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);
    const kinds = (await points(env, ws)).map((p) => p.kind);
    expect(kinds).toContain('undo');
    expect(kinds).toContain('delegation');
  }, 120_000);

  it('attach undo TASK [ID]: a served task\'s points, and the restore of its Coding delegation', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = gitRepo(sb);
    const env = withScript(sb, codingScript(false));
    const serve = start(['serve'], env);
    reaper.push(serve);
    await until(async () => ((await runCli(['attach', 'tasks', '--json'], env)).code === 0 ? true : undefined), 'the supervisor');
    const sent = await runCli(['-p', 'go', '--attach', '-y'], env, { cwd: ws });
    expect(sent.code, sent.stderr).toBe(0);
    const taskId = (JSON.parse((await runCli(['attach', 'tasks', '--json'], env)).stdout) as { tasks: { taskId: string }[] }).tasks[0]!.taskId;
    const listed = await runCli(['attach', 'undo', taskId, '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const d = (JSON.parse(listed.stdout) as { points: { id: string; kind: string; agent: string }[] }).points.find((p) => p.kind === 'delegation')!;
    expect(d.agent).toBe('coding');
    const table = await runCli(['attach', 'undo', taskId], env);
    expect(table.stdout).toContain(d.id);
    const undo = await runCli(['attach', 'undo', taskId, d.id], env);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/undid/);
    expect(readFileSync(join(ws, 'b.txt')).equals(Buffer.from(B_TXT))).toBe(true);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);
    writeFileSync(join(ws, 'b.txt'), 'user\n');
    const again = await runCli(['attach', 'undo', taskId, d.id], env); // its undo point now sees b.txt changed since
    expect(again.code).toBe(1);
  }, 120_000);

  it('kill -9 of the CLI mid-delegation: the point before it is intact and undoes the shell edit', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = gitRepo(sb);
    const env = withScript(sb, codingScript(true));
    const child = start(['-p', 'go', '-y'], env, { cwd: ws });
    reaper.push(child);
    const done = collect(child);
    await until(() => (readFileSync(join(ws, 'b.txt'), 'utf8').includes('new value') ? true : undefined), 'the sed edit', 60_000);
    child.kill('SIGKILL');
    await done;
    const d = (await points(env, ws)).find((p) => p.kind === 'delegation')!;
    expect(d).toMatchObject({ agent: 'coding', ended: false });
    expect([...d.files].sort()).toEqual(['a.txt', 'b.txt']);
    expect((await runCli(['undo', d.id, '--yes'], env, { cwd: ws })).code).toBe(0);
    expect(readFileSync(join(ws, 'b.txt')).equals(Buffer.from(B_TXT))).toBe(true);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);
  }, 120_000);
});
