// Issue 26, parallel writers end to end through the real CLI and real git; only the model is scripted. Two Coding
// delegations of one Director step run at once, each in its own worktree, and merge back; same-line edits are a
// conflict the Director reads in its next request, and neither change is lost.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
});

/** The Director starts two Coding delegations in one step (briefs WRITER-A and WRITER-B). Each Coding run makes its
 *  edit, then its exit waits until both runs have sent a request (up to 20 s): `overlapFile`-a/-b get how many each
 *  saw, both 2 only when they ran at the same time. The Director's next request is written to `seenFile`. */
function twoWriters(edit: { a: string; b: string }, overlapFile: string, seenFile: string): string {
  return `${PRELUDE}
import { writeFileSync } from 'node:fs';
const started = new Set();
const both = { text: '', finishReason: 'tool_calls', toolCalls: [
  { name: 'delegate_coding', arguments: JSON.stringify({ task: 'WRITER-A: do your edit', context_refs: [] }) },
  { name: 'delegate_coding', arguments: JSON.stringify({ task: 'WRITER-B: do your edit', context_refs: [] }) },
] };
const edits = { a: ${JSON.stringify(edit.a)}, b: ${JSON.stringify(edit.b)} };
const coding = async (req) => {
  const who = firstUser(req).includes('WRITER-A') ? 'a' : 'b';
  const done = (req.body.messages || []).filter((m) => m.role === 'tool').length;
  started.add(who);
  if (done === 0) return call('run_bash', { command: edits[who], is_dangerous: false });
  if (done === 1) {
    const end = Date.now() + 20000;
    while (started.size < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    writeFileSync(${JSON.stringify(overlapFile)} + '-' + who, String(started.size));
    return call('agent_exit', { conclusion: 'edited for ' + who, facts: [], artifacts: [], status: 'ok' });
  }
  return say('done');
};
const answer = (req) => {
  writeFileSync(${JSON.stringify(seenFile)}, JSON.stringify(req.body.messages));
  return say('Both coding runs ended.');
};
export default { director: [both, answer, ...times(5, say('Both coding runs ended.'))], coding: times(12, coding) };
`;
}

function gitRepo(s: Sandbox): { ws: string; git: (...a: string[]) => string } {
  const ws = project(s, { 'shared.txt': 'line 1\nline 2\nline 3\n', 'keep.txt': 'kept\n' });
  const git = (...a: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: s.dir } });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'start');
  return { ws, git };
}

/** Processes (other than this test's) whose working directory is under `dir`: a leftover shell, server or git. */
function processesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd.startsWith(dir)) out.push(`${pid} ${cwd}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

interface Point {
  id: string;
  kind: string;
  agent: string;
  files: string[];
}

async function points(env: NodeJS.ProcessEnv, ws: string): Promise<Point[]> {
  const r = await runCli(['undo', '--json'], env, { cwd: ws });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Point);
}

async function afterRun(s: Sandbox, git: (...a: string[]) => string): Promise<void> {
  expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
  expect(git('branch', '--list', 'yagent/writer-*')).toBe('');
  // the CLI's watchdog shell ends right after it (on its pipe's EOF): wait for that, not a fixed time
  const left = await until(() => (processesUnder(s.dir).length === 0 ? [] : undefined), `no process left under ${s.dir}: ${processesUnder(s.dir).join('; ')}`).catch(() => processesUnder(s.dir));
  expect(left).toEqual([]);
}

/** The tool results in the Director's request that `twoWriters` saved to `seen`. */
const toolResults = (seen: string): string[] => (JSON.parse(readFileSync(seen, 'utf8')) as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);

describe('parallel writers (real CLI, real git)', () => {
  it('two Coding delegations of one step run at the same time in their own worktrees, and both changes land; each is one undo step', async () => {
    sb = sandbox(GOOD_CONFIG);
    const { ws, git } = gitRepo(sb);
    const overlap = join(sb.dir, 'overlap');
    const seen = join(sb.dir, 'seen.json');
    const env = withScript(sb, twoWriters({ a: 'printf "made by a\\n" > a.txt && pwd', b: 'printf "made by b\\n" > b.txt && pwd' }, overlap, seen));
    const run = await runCli(['-p', 'write a.txt and b.txt at once', '-y', '-v'], env, { cwd: ws });
    expect(run.code, run.stderr).toBe(0);
    expect([readFileSync(`${overlap}-a`, 'utf8'), readFileSync(`${overlap}-b`, 'utf8')]).toEqual(['2', '2']);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('made by a\n');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('made by b\n');
    // each worked in its own tree (its shell's cwd), and the progress lines name the worktree
    expect(run.stderr).toMatch(/coding: in its own worktree \(yagent\/writer-/);
    const results = toolResults(seen);
    expect(results).toHaveLength(2);
    for (const r of results) expect(r).toMatch(/\[worktree yagent\/writer-\S+: merged into your working tree: [ab]\.txt\]/);
    await afterRun(sb, git);

    // one undo step per merged delegation: undoing A removes a.txt and leaves B's b.txt
    const list = (await points(env, ws)).filter((p) => p.kind === 'delegation');
    expect(list.map((p) => p.files.join(',')).sort()).toEqual(['a.txt', 'b.txt']);
    const a = list.find((p) => p.files.includes('a.txt'))!;
    const undo = await runCli(['undo', a.id, '--yes'], env, { cwd: ws });
    expect(undo.code, undo.stderr).toBe(0);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('made by b\n');
  }, 180_000);

  it('two that change the same line: the Director\'s next request has the conflict (files, hunks, branch); neither change is lost', async () => {
    sb = sandbox(GOOD_CONFIG);
    const { ws, git } = gitRepo(sb);
    const overlap = join(sb.dir, 'overlap');
    const seen = join(sb.dir, 'seen.json');
    const env = withScript(sb, twoWriters({ a: "sed -i 's/line 2/line 2 by a/' shared.txt", b: "sed -i 's/line 2/line 2 by b/' shared.txt" }, overlap, seen));
    const run = await runCli(['-p', 'both edit line 2', '-y', '-v'], env, { cwd: ws });
    expect(run.code, run.stderr).toBe(0);
    expect([readFileSync(`${overlap}-a`, 'utf8'), readFileSync(`${overlap}-b`, 'utf8')]).toEqual(['2', '2']);
    const results = toolResults(seen);
    const conflict = results.find((r) => r.includes('MERGE CONFLICT'));
    expect(conflict, results.join('\n---\n')).toBeDefined();
    expect(results.filter((r) => r.includes('merged into your working tree: shared.txt'))).toHaveLength(1);
    const branch = /on branch (yagent\/conflict-[\w-]+)/.exec(conflict!)?.[1];
    expect(branch).toBeDefined();
    expect(conflict).toMatch(/shared\.txt/);
    expect(conflict).toMatch(/<<<<<<< your tree\n(line 2 by [ab])\n=======\n(line 2 by [ab])\n>>>>>>> delegation/);
    // one version in the tree, the other on the named branch
    const inTree = readFileSync(join(ws, 'shared.txt'), 'utf8');
    const onBranch = git('show', `${branch}:shared.txt`);
    expect([inTree, onBranch].sort()).toEqual(['line 1\nline 2 by a\nline 3\n', 'line 1\nline 2 by b\nline 3\n']);
    expect(run.stderr).toMatch(/MERGE CONFLICT in shared\.txt: kept on yagent\/conflict-/);
    await afterRun(sb, git);
    expect(git('status', '--porcelain')).toBe(' M shared.txt\n');
  }, 180_000);

  it('a workspace that is no git repository runs the two writers one after the other in its own tree, as before', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb, { 'keep.txt': 'kept\n' });
    const order = join(sb.dir, 'order');
    const run = await runCli(['-p', 'write both', '-y', '-v'], withScript(sb, orderedWriters(order)), { cwd: ws });
    expect(run.code, run.stderr).toBe(0);
    const seq = readFileSync(order, 'utf8').trim().split('\n');
    expect(seq).toHaveLength(4);
    // one run's requests all come before the other's: they never overlapped
    expect([seq[0]?.[0], seq[1]?.[0]]).toEqual([seq[0]?.[0], seq[0]?.[0]]);
    expect(seq[2]?.[0]).not.toBe(seq[0]?.[0]);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('by a\n');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('by b\n');
    expect(run.stderr).not.toMatch(/worktree/);
  }, 180_000);

  it('kill -9 of the CLI while two writers work: the next start removes their worktrees and branches, and keeps their work on a branch', async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    const { ws, git } = gitRepo(s);
    const cli = start(['-p', 'write both', '-y'], withScript(s, stalledWriters(s.dir)), { cwd: ws });
    const exited = collect(cli);
    await until(() => (existsSync(join(s.dir, 'asked-a')) && existsSync(join(s.dir, 'asked-b')) ? true : undefined), 'both Coding runs at work');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(3);
    cli.kill('SIGKILL');
    await exited;
    // nothing ran at exit: the trees are still there, the user's tree untouched
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(3);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);

    const next = await runCli(['-p', 'hi', '-v'], withScript(s, `${PRELUDE}\nexport default { director: times(3, say('hello')) };\n`), { cwd: ws });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/removed 2 worktree\(s\) a stopped yagent left; the work they held is kept on yagent\/interrupted-\S+, yagent\/interrupted-/);
    await afterRun(s, git);
    const kept = git('branch', '--list', 'yagent/interrupted-*').split('\n').map((b) => b.trim()).filter(Boolean);
    expect(kept).toHaveLength(2);
    expect(kept.map((b) => git('ls-tree', '--name-only', b).split('\n').filter((f) => /^[ab]\.txt$/.test(f)).join()).sort()).toEqual(['a.txt', 'b.txt']);
  }, 180_000);

  it('a cancel (Ctrl-C) while two writers work: both are merged back, the worktrees are gone', async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    const { ws, git } = gitRepo(s);
    const cli = start(['-p', 'write both', '-y'], withScript(s, stalledWriters(s.dir)), { cwd: ws });
    const exited = collect(cli);
    await until(() => (existsSync(join(s.dir, 'asked-a')) && existsSync(join(s.dir, 'asked-b')) ? true : undefined), 'both Coding runs at work');
    cli.kill('SIGINT');
    const r = await exited;
    expect(r.code, r.stderr).not.toBe(0);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('by a\n');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('by b\n');
    await afterRun(s, git);
    expect(git('branch', '--list', 'yagent/*')).toBe('');
  }, 180_000);
});

/** The Director's one step delegating WRITER-A and WRITER-B together, and the head of each Coding run's script: which
 *  writer it is (`who`) and how many tool results it has (`done`). */
const TWO_WRITERS = `const both = { text: '', finishReason: 'tool_calls', toolCalls: [
  { name: 'delegate_coding', arguments: JSON.stringify({ task: 'WRITER-A', context_refs: [] }) },
  { name: 'delegate_coding', arguments: JSON.stringify({ task: 'WRITER-B', context_refs: [] }) },
] };
const coding = (req) => {
  const who = firstUser(req).includes('WRITER-A') ? 'a' : 'b';
  const done = (req.body.messages || []).filter((m) => m.role === 'tool').length;`;

/** Two Coding runs at once: each writes its file, says so (`asked-<who>`), then its model never answers again. */
function stalledWriters(dir: string): string {
  return `${PRELUDE}
import { writeFileSync } from 'node:fs';
${TWO_WRITERS}
  if (done === 0) return call('create_file', { path: who + '.txt', content: 'by ' + who + '\\n' });
  writeFileSync(${JSON.stringify(dir)} + '/asked-' + who, 'x');
  return { text: 'x', fault: { kind: 'stall', afterEvents: 1 } };
};
export default { director: [both, ...times(5, say('stopped'))], coding: times(12, coding) };
`;
}

/** Two Coding runs: each writes its file and exits; every request appends `<who><step>` to `orderFile`. */
function orderedWriters(orderFile: string): string {
  return `${PRELUDE}
import { appendFileSync } from 'node:fs';
${TWO_WRITERS}
  appendFileSync(${JSON.stringify(orderFile)}, who + done + '\\n');
  if (done === 0) return call('create_file', { path: who + '.txt', content: 'by ' + who + '\\n' });
  return call('agent_exit', { conclusion: 'wrote ' + who, facts: [], artifacts: [], status: 'ok' });
};
export default { director: [both, ...times(5, say('both written'))], coding: times(12, coding) };
`;
}
