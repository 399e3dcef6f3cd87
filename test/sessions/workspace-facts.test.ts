// Workspace facts of a checkpoint (issue 24 item 7): real git through runSafeGit, real files; what changed, in words.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceChanges, workspaceFacts } from '../../src/actors/agents/workspace-facts.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8' }).trim();

describe('workspace facts', () => {
  it('HEAD, branch and a digest per touched file; each later change is named', async () => {
    dir = mkdtempSync(join(tmpdir(), 'yagent-facts-'));
    git('init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    writeFileSync(join(dir, 'b.txt'), 'two\n');
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    const then = await workspaceFacts(dir, ['a.txt', 'b.txt', 'c.txt']);
    expect(then).toMatchObject({ head: git('rev-parse', 'HEAD'), branch: 'main' });
    expect(then.files.map((f) => [f.path, f.sha256.length])).toEqual([['a.txt', 64], ['b.txt', 64], ['c.txt', 7]]);
    expect(workspaceChanges(then, await workspaceFacts(dir, ['a.txt', 'b.txt', 'c.txt']))).toEqual([]);
    writeFileSync(join(dir, 'a.txt'), 'edited by the user\n');
    unlinkSync(join(dir, 'b.txt'));
    writeFileSync(join(dir, 'c.txt'), 'new\n');
    git('checkout', '-q', '-b', 'topic');
    git('commit', '-q', '--allow-empty', '-m', 'two');
    const now = await workspaceFacts(dir, ['a.txt', 'b.txt', 'c.txt']);
    expect(workspaceChanges(then, now)).toEqual([
      `HEAD moved from ${then.head?.slice(0, 12)} to ${now.head?.slice(0, 12)}`,
      'the branch changed from main to topic',
      'a.txt was modified',
      'b.txt was deleted',
      'c.txt was created',
    ]);
  });

  it('outside a repository HEAD and branch are null (never an error)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'yagent-facts-'));
    expect(await workspaceFacts(dir, [])).toEqual({ head: null, branch: null, files: [] });
  });
});
