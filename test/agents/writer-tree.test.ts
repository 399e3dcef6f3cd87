// Parallel writers' worktrees (issue 26), real git: two writers from the current state (uncommitted work included)
// merge back; same-line edits are a conflict that loses neither; `git worktree list` is clean after; a killed
// process's leftovers are swept.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeWriterTree, mergeWriterTree, openWriterTree, sweepWriterTrees } from '../../src/actors/agents/writer-tree.js';

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
    expect(!r.ok && r.hunks).toContain('+line 2 by b');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line 1\nline 2 by a\nline 3\n');
    expect(git('show', 'yagent/conflict-b2:shared.txt')).toBe('line 1\nline 2 by b\nline 3\n');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('a killed process\'s worktree and writer branch are swept at the next start', async () => {
    const dead = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    const path = join(tmpdir(), `yagent-wt-${dead}-gone`);
    git('worktree', 'add', '-q', '-b', 'yagent/writer-gone', path);
    const swept = await sweepWriterTrees(repo);
    expect(swept).toEqual([path]);
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git('branch', '--list', 'yagent/*')).toBe('');
  });
});
