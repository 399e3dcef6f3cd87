// A write delegation's own git worktree (issue 26, parallel writers): a private branch from the current state
// (uncommitted and untracked files included), merged back into the user's working tree when it ends; a patch that
// does not apply is a conflict report (files and hunks) and the result stays on a kept branch. Not wired yet.
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runSafeGitResult } from '../../runtime/safe-git.js';

const TIMEOUT_MS = 120_000;
const IDENTITY = { GIT_AUTHOR_NAME: 'yagent', GIT_AUTHOR_EMAIL: 'yagent@localhost', GIT_COMMITTER_NAME: 'yagent', GIT_COMMITTER_EMAIL: 'yagent@localhost' };
export const WRITER_BRANCH_PREFIX = 'yagent/writer-';
export const CONFLICT_BRANCH_PREFIX = 'yagent/conflict-';
const TREE_PREFIX = 'yagent-wt-';

export interface WriterTree {
  id: string;
  repo: string;
  path: string;
  branch: string;
  /** The commit of the state it started from. */
  base: string;
}

export type MergeResult = { ok: true; files: string[] } | { ok: false; branch: string; files: string[]; hunks: string };

async function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await runSafeGitResult(cwd, args, { timeoutMs: TIMEOUT_MS, maxBuffer: 64 << 20, gitEnv: { ...IDENTITY, ...env } });
  if (!r.ok) throw new Error(r.error);
  return r.stdout;
}

/** The working tree as a commit on HEAD (tracked, untracked, .gitignore respected), through a scratch index. */
async function stateCommit(repo: string, id: string): Promise<string> {
  const scratch = join(tmpdir(), `yagent-wt-index-${process.pid}-${id}`);
  try {
    const head = (await git(repo, ['rev-parse', '--verify', 'HEAD'])).trim();
    await git(repo, ['read-tree', head], { GIT_INDEX_FILE: scratch });
    await git(repo, ['add', '-A'], { GIT_INDEX_FILE: scratch });
    const tree = (await git(repo, ['write-tree'], { GIT_INDEX_FILE: scratch })).trim();
    return (await git(repo, ['commit-tree', tree, '-p', head, '-m', `yagent writer ${id}: start`])).trim();
  } finally {
    await fsp.rm(scratch, { force: true });
  }
}

/** A worktree on branch `yagent/writer-<id>` from the current state; the delegation's shell and guard use `path`. */
export async function openWriterTree(repo: string, id: string): Promise<WriterTree> {
  const base = await stateCommit(repo, id);
  const path = join(tmpdir(), `${TREE_PREFIX}${process.pid}-${id}`);
  const branch = `${WRITER_BRANCH_PREFIX}${id}`;
  await git(repo, ['worktree', 'add', '-q', '-b', branch, path, base]);
  return { id, repo, path, branch, base };
}

/** Commits what the delegation left and applies its diff to the user's working tree; a diff that does not apply is
 *  a conflict: nothing is written there and the result is kept on `yagent/conflict-<id>`. */
export async function mergeWriterTree(t: WriterTree): Promise<MergeResult> {
  await git(t.path, ['add', '-A']);
  const tree = (await git(t.path, ['write-tree'])).trim();
  const done = (await git(t.path, ['commit-tree', tree, '-p', t.base, '-m', `yagent writer ${t.id}: result`])).trim();
  const files = (await git(t.repo, ['diff', '--name-only', '--no-renames', t.base, done])).split('\n').filter(Boolean);
  if (files.length === 0) return { ok: true, files };
  const patch = await git(t.repo, ['diff', '--binary', '--no-ext-diff', '--no-textconv', '--no-renames', t.base, done]);
  const file = join(tmpdir(), `yagent-wt-patch-${process.pid}-${t.id}`);
  await fsp.writeFile(file, patch, { mode: 0o600 });
  try {
    const check = await runSafeGitResult(t.repo, ['apply', '--check', file], { timeoutMs: TIMEOUT_MS });
    if (!check.ok) {
      const branch = `${CONFLICT_BRANCH_PREFIX}${t.id}`;
      await git(t.repo, ['branch', '-f', branch, done]);
      return { ok: false, branch, files, hunks: patch };
    }
    await git(t.repo, ['apply', file]);
    return { ok: true, files };
  } finally {
    await fsp.rm(file, { force: true });
  }
}

/** Removes the worktree and its writer branch (a conflict's result lives on its own branch). */
export async function closeWriterTree(t: WriterTree): Promise<void> {
  await git(t.repo, ['worktree', 'remove', '--force', t.path]);
  await git(t.repo, ['branch', '-D', t.branch]);
}

/** At start: worktrees and writer branches a killed process left (`yagent/conflict-*` results are kept). */
export async function sweepWriterTrees(repo: string): Promise<string[]> {
  const list = await git(repo, ['worktree', 'list', '--porcelain']);
  const gone: string[] = [];
  // the first block is the main working tree, never ours
  for (const block of list.split('\n\n').slice(1)) {
    const path = /^worktree (.*)$/m.exec(block)?.[1];
    const pid = Number(new RegExp(`^${TREE_PREFIX}(\\d+)-`).exec(basename(path ?? ''))?.[1] ?? '0');
    if (path === undefined || pid === 0 || pid === process.pid || alive(pid)) continue;
    await git(repo, ['worktree', 'remove', '--force', path]);
    gone.push(path);
  }
  await git(repo, ['worktree', 'prune']);
  // a for-each-ref pattern matches whole path components: list yagent/ and keep the writer branches
  const branches = (await git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/yagent/'])).split('\n').filter((b) => b.startsWith(WRITER_BRANCH_PREFIX));
  const used = await git(repo, ['worktree', 'list', '--porcelain']);
  for (const b of branches) if (!used.includes(`branch refs/heads/${b}`)) await git(repo, ['branch', '-D', b]);
  return gone;
}

function alive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // ESRCH: no such process (EPERM cannot happen for our own user's children)
  }
}
