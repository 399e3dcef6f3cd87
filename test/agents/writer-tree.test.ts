// Parallel writers' worktrees (issue 26), real git: two writers from the current state (uncommitted work included)
// merge back; same-line edits are a conflict that loses neither; `git worktree list` is clean after; a killed
// process's leftovers are swept.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeWriterTree, openWriterTree, sweepWriterTrees } from '../../src/actors/agents/writer-tree.js';
import { mergeWriterTree } from '../../src/actors/agents/writer-merge.js';
import { procStartTime } from '../../src/runtime/owner-mark.js';

let repo: string;
const git = (...a: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: repo, encoding: 'utf8' });
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'yagent-wt-test-'));
  git('init', '-q');
  writeFileSync(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\n');
  git('add', '.');
  git('commit', '-qm', 'start');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('writer worktrees', () => {
  it('two writers start from the current state (uncommitted included), write different files and both land; the tree list is clean', async () => {
    writeFileSync(join(repo, 'wip.txt'), 'uncommitted\n');
    const [a, b] = await Promise.all([openWriterTree(repo, 'a1'), openWriterTree(repo, 'b1')]);
    expect(readFileSync(join(a.path, 'wip.txt'), 'utf8')).toBe('uncommitted\n');
    writeFileSync(join(a.path, 'a.txt'), 'from a\n');
    writeFileSync(join(b.path, 'b.txt'), 'from b\n');
    expect(await mergeWriterTree(a)).toEqual({ ok: true, files: ['a.txt'] });
    expect(await mergeWriterTree(b)).toEqual({ ok: true, files: ['b.txt'] });
    await closeWriterTree(a);
    await closeWriterTree(b);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('from a\n');
    expect(readFileSync(join(repo, 'b.txt'), 'utf8')).toBe('from b\n');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git('branch', '--list', 'yagent/*')).toBe('');
  });

  it('same-line edits: the second is a conflict with its files and hunks, kept on a branch; neither change is lost', async () => {
    const [a, b] = await Promise.all([openWriterTree(repo, 'a2'), openWriterTree(repo, 'b2')]);
    writeFileSync(join(a.path, 'shared.txt'), 'line 1\nline 2 by a\nline 3\n');
    writeFileSync(join(b.path, 'shared.txt'), 'line 1\nline 2 by b\nline 3\n');
    expect((await mergeWriterTree(a)).ok).toBe(true);
    const r = await mergeWriterTree(b);
    await closeWriterTree(a);
    await closeWriterTree(b);
    expect(r).toMatchObject({ ok: false, branch: 'yagent/conflict-b2', files: ['shared.txt'] });
    expect(!r.ok && r.hunks).toContain('line 2 by b');
    expect(!r.ok && r.hunks).toContain('line 2 by a');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1\nline 2 by a\nline 3\n');
    expect(git('show', 'yagent/conflict-b2:shared.txt')).toBe('line 1\nline 2 by b\nline 3\n');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('edits to different lines of one file (and the user\'s own) both land: a three-way merge, not a patch', async () => {
    writeFileSync(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3\nline 4\nline 5\n');
    git('commit', '-qam', 'five');
    const [a, b] = await Promise.all([openWriterTree(repo, 'a3'), openWriterTree(repo, 'b3')]);
    writeFileSync(join(a.path, 'shared.txt'), 'line 1 by a\nline 2\nline 3\nline 4\nline 5\n');
    writeFileSync(join(b.path, 'shared.txt'), 'line 1\nline 2\nline 3\nline 4\nline 5 by b\n');
    writeFileSync(join(repo, 'shared.txt'), 'line 1\nline 2\nline 3 by user\nline 4\nline 5\n');
    expect(await mergeWriterTree(a)).toEqual({ ok: true, files: ['shared.txt'] });
    expect(await mergeWriterTree(b)).toEqual({ ok: true, files: ['shared.txt'] });
    await closeWriterTree(a);
    await closeWriterTree(b);
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1 by a\nline 2\nline 3 by user\nline 4\nline 5 by b\n');
    expect(git('status', '--porcelain')).toBe(' M shared.txt\n');
  });

  it('a killed process\'s worktree and writer branch are swept at the next start; its work is kept on a branch', async () => {
    const dead = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    const path = join(tmpdir(), `yagent-wt-${dead}-12345-gone`);
    git('worktree', 'add', '-q', '-b', 'yagent/writer-gone', path);
    writeFileSync(join(path, 'half.txt'), 'half done\n');
    // a live process's tree (this one's) is never touched
    const mine = await openWriterTree(repo, 'live');
    expect(mine.path).toContain(`yagent-wt-${process.pid}-${procStartTime(process.pid)}-live`);
    const swept = await sweepWriterTrees(repo);
    expect(swept).toEqual({ removed: [path], kept: ['yagent/interrupted-gone'] });
    expect(git('show', 'yagent/interrupted-gone:half.txt')).toBe('half done\n');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(2);
    await closeWriterTree(mine);
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git('branch', '--list', 'yagent/writer-*')).toBe('');
  });

  it('a tree (the user\'s code, untracked files too) lives in a random-named directory only its owner can enter, removed with it', async () => {
    writeFileSync(join(repo, '.env'), 'SECRET=1\n');
    const t = await openWriterTree(repo, 'p1');
    const home = dirname(t.path);
    expect(home).not.toBe(tmpdir());
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(t.path, '.env'), 'utf8')).toBe('SECRET=1\n');
    await closeWriterTree(t);
    expect(existsSync(home)).toBe(false);
    expect(existsSync(tmpdir())).toBe(true);
  });

  it('a workspace below the repository\'s top works in the same place of its tree', async () => {
    execFileSync('mkdir', ['-p', join(repo, 'pkg')]);
    const t = await openWriterTree(join(repo, 'pkg'), 's1');
    expect(t.workspace).toBe(join(t.path, 'pkg'));
    writeFileSync(join(t.workspace, 'x.txt'), 'x\n');
    expect(await mergeWriterTree(t)).toEqual({ ok: true, files: ['pkg/x.txt'] });
    await closeWriterTree(t);
    expect(readFileSync(join(repo, 'pkg', 'x.txt'), 'utf8')).toBe('x\n');
  });
});
