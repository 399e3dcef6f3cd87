// A write delegation's own git worktree (issue 26, parallel writers): a private branch from the current state
// (uncommitted and untracked files included), merged back into the user's working tree when it ends (writer-merge.ts),
// removed on every path; a killed process's leftovers are swept at the next start (owner: pid AND start time).
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { procStartTime } from '../../runtime/owner-mark.js';
import { runSafeGitResult } from '../../runtime/safe-git.js';

const TIMEOUT_MS = 120_000;
const IDENTITY = { GIT_AUTHOR_NAME: 'yagent', GIT_AUTHOR_EMAIL: 'yagent@localhost', GIT_COMMITTER_NAME: 'yagent', GIT_COMMITTER_EMAIL: 'yagent@localhost' };
export const WRITER_BRANCH_PREFIX = 'yagent/writer-';
export const CONFLICT_BRANCH_PREFIX = 'yagent/conflict-';
/** A swept tree that held work: kept here rather than lost. */
export const INTERRUPTED_BRANCH_PREFIX = 'yagent/interrupted-';
/** `yagent-wt-<pid>-<start time>-<id>`: whose it is, so a sweep removes only trees of processes that are gone. */
const TREE_PREFIX = 'yagent-wt-';
/** The 0700 directory (mkdtemp) each tree and its scratch index live in. */
const PRIVATE_PREFIX = 'yagent-writer-';

export interface WriterTree {
  id: string;
  /** The repository's top level (the user's working tree). */
  repo: string;
  /** The worktree's top level. */
  path: string;
  /** Where the delegation works: the worktree plus the workspace's place in the repository. */
  workspace: string;
  branch: string;
  /** The commit of the state it started from. */
  base: string;
}

export async function git(cwd: string, args: string[], env: Record<string, string> = {}, encoding: 'utf8' | 'latin1' = 'utf8'): Promise<string> {
  const r = await runSafeGitResult(cwd, args, { timeoutMs: TIMEOUT_MS, maxBuffer: 64 << 20, gitEnv: { ...IDENTITY, ...env }, encoding });
  if (!r.ok) throw new Error(r.error);
  return r.stdout;
}

/** The repository a workspace lies in and the workspace's place in it; null outside a repository with a commit. */
export async function repoOf(workspace: string): Promise<{ top: string; prefix: string } | null> {
  // fails without a commit (HEAD names none) or outside a repository
  const r = await runSafeGitResult(workspace, ['rev-parse', '--show-toplevel', '--show-prefix', 'HEAD'], { timeoutMs: 10_000 });
  if (!r.ok) return null;
  const [top, prefix] = r.stdout.split('\n');
  return top ? { top, prefix: prefix ?? '' } : null;
}

/** The working tree as a commit on HEAD (tracked, untracked, .gitignore respected), through a scratch index. */
async function stateCommit(repo: string, id: string, home: string): Promise<string> {
  const scratch = join(home, 'index');
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

/** Per repository, the tail of this process's worktree adds and removes. */
const treeOps = new Map<string, Promise<unknown>>();

/** `git worktree add` reads every other tree's admin files while it writes its own: two at once in one repository
 *  race ("failed to read .git/worktrees/…/commondir"), so this process adds and removes one tree at a time there. */
async function oneAtATime<T>(repo: string, op: () => Promise<T>): Promise<T> {
  const run = (treeOps.get(repo) ?? Promise.resolve()).then(op, op);
  const tail = run.catch(() => undefined); // the next op waits for this one, whatever it did
  treeOps.set(repo, tail);
  try {
    return await run;
  } finally {
    if (treeOps.get(repo) === tail) treeOps.delete(repo);
  }
}

function ownerTag(): string {
  return `${process.pid}-${procStartTime(process.pid) ?? '0'}`;
}

/** A worktree on branch `yagent/writer-<id>` from the current state of `workspace`'s repository; the delegation's
 *  shell and guard use `workspace` of the result. */
export async function openWriterTree(workspace: string, id: string): Promise<WriterTree> {
  const where = await repoOf(workspace);
  if (where === null) throw new Error(`${workspace} is not in a git repository with a commit`);
  // the tree holds the user's code (untracked files too): a random-named 0700 directory, never a guessable /tmp path
  const home = await fsp.mkdtemp(join(tmpdir(), PRIVATE_PREFIX));
  const base = await stateCommit(where.top, id, home);
  const path = join(home, `${TREE_PREFIX}${ownerTag()}-${id}`);
  const branch = `${WRITER_BRANCH_PREFIX}${id}`;
  await oneAtATime(where.top, () => git(where.top, ['worktree', 'add', '-q', '-b', branch, path, base]));
  const inTree = resolve(path, where.prefix);
  // a workspace git holds no file of (empty, or all ignored) is still where the delegation works
  await fsp.mkdir(inTree, { recursive: true });
  return { id, repo: where.top, path, workspace: inTree, branch, base };
}

/** Removes the worktree and its writer branch (a conflict's result lives on its own branch). */
export async function closeWriterTree(t: WriterTree): Promise<void> {
  await oneAtATime(t.repo, () => git(t.repo, ['worktree', 'remove', '--force', t.path]));
  await git(t.repo, ['branch', '-D', t.branch]);
  await removePrivateHome(t.path);
}

/** The private directory `openWriterTree` made around a tree (only ever one of ours, never the temp dir itself). */
async function removePrivateHome(treePath: string): Promise<void> {
  const home = dirname(treePath);
  if (basename(home).startsWith(PRIVATE_PREFIX)) await fsp.rm(home, { recursive: true, force: true });
}

/** Whether the process that named a tree `yagent-wt-<pid>-<start>-…` is gone (its pid is free or another process's). */
function ownerGone(name: string): boolean {
  const m = new RegExp(`^${TREE_PREFIX}(\\d+)-(\\d+)-`).exec(name);
  if (m === null) return false; // not ours
  const [pid, start] = [Number(m[1]), m[2]];
  if (pid === process.pid && start === procStartTime(pid)) return false;
  return procStartTime(pid) !== start;
}

/** A cheap look before any git runs (start-up path): does this repository's git dir hold a tree of ours? */
export async function hasWriterTrees(workspace: string): Promise<boolean> {
  for (let dir = workspace; ; ) {
    const names = await fsp.readdir(join(dir, '.git', 'worktrees')).catch(() => null);
    if (names !== null) return names.some((n) => n.startsWith(TREE_PREFIX));
    const st = await fsp.stat(join(dir, '.git')).catch(() => null);
    if (st !== null) return false; // the repository's git dir, without trees (or a worktree's .git file)
    const up = join(dir, '..');
    if (up === dir) return false;
    dir = up;
  }
}

/** At start: worktrees and writer branches a killed process left. A tree that held work keeps it on
 *  `yagent/interrupted-<id>` (nothing is lost); `yagent/conflict-*` results are kept. Returns the removed paths. */
export async function sweepWriterTrees(workspace: string): Promise<{ removed: string[]; kept: string[] }> {
  const where = await repoOf(workspace);
  if (where === null) return { removed: [], kept: [] };
  const repo = where.top;
  const list = await git(repo, ['worktree', 'list', '--porcelain']);
  const removed: string[] = [];
  const kept: string[] = [];
  // the first block is the main working tree, never ours
  for (const block of list.split('\n\n').slice(1)) {
    const path = /^worktree (.*)$/m.exec(block)?.[1];
    if (path === undefined || !ownerGone(basename(path))) continue;
    const saved = await keepWork(repo, path, block);
    if (saved !== null) kept.push(saved);
    await git(repo, ['worktree', 'remove', '--force', path]).catch(async () => fsp.rm(path, { recursive: true, force: true }));
    await removePrivateHome(path);
    removed.push(path);
  }
  await git(repo, ['worktree', 'prune']);
  // a for-each-ref pattern matches whole path components: list yagent/ and keep the writer branches
  const branches = (await git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/yagent/'])).split('\n').filter((b) => b.startsWith(WRITER_BRANCH_PREFIX));
  const used = await git(repo, ['worktree', 'list', '--porcelain']);
  for (const b of branches) if (!used.includes(`branch refs/heads/${b}`)) await git(repo, ['branch', '-D', b]);
  return { removed, kept };
}

/** The work a killed delegation left in its tree, as a commit on `yagent/interrupted-<id>`; null when it left none. */
async function keepWork(repo: string, path: string, block: string): Promise<string | null> {
  const head = /^HEAD ([0-9a-f]+)$/m.exec(block)?.[1];
  const branch = /^branch refs\/heads\/(.*)$/m.exec(block)?.[1];
  if (head === undefined || branch === undefined || !branch.startsWith(WRITER_BRANCH_PREFIX)) return null;
  try {
    await git(path, ['add', '-A']);
    const tree = (await git(path, ['write-tree'])).trim();
    if (tree === (await git(path, ['rev-parse', `${head}^{tree}`])).trim()) return null;
    const done = (await git(path, ['commit-tree', tree, '-p', head, '-m', 'yagent writer: interrupted'])).trim();
    const kept = `${INTERRUPTED_BRANCH_PREFIX}${branch.slice(WRITER_BRANCH_PREFIX.length)}`;
    await git(repo, ['branch', '-f', kept, done]);
    return kept;
  } catch {
    return null; // a tree git cannot read any more (deleted by hand): nothing to keep from it
  }
}
