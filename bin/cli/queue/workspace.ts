// Where a queued task runs on this worker: a path that exists here, or a fresh private clone (one per attempt, so a
// task taken over from a killed worker starts clean), and the diff of what the task changed (a tree snapshot before
// and after, through a private index: the repository's own index is never touched).
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { runSafeGit } from '../../../src/runtime/safe-git.js';
import { makeTempDir, type TempDir } from '../../host/temp-dir.js';
import { workspaceProblem } from '../batch.js';
import type { Where } from './payload.js';
import { maskUrl } from './url.js';

const ROOT_PREFIX = 'yagent-worker-';
const CLONE_MS = 10 * 60_000;
const GIT_MS = 2 * 60_000;

export interface Workspace {
  dir: string;
  /** The diff (git format, binary-safe) of the task's changes; null when the directory is not a git work tree. */
  diff(): Promise<string | null>;
  /** Removes the clone (a path workspace stays); the private snapshot index always goes. */
  remove(): void;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** This worker's private directory ($TMPDIR/yagent-worker-PID-XXXX, 0700): clones and snapshot indexes live there. */
export class WorkspaceRoot {
  private readonly root: TempDir = makeTempDir(`${ROOT_PREFIX}${process.pid}-`);
  private seq = 0;

  get path(): string {
    return this.root.path;
  }

  /** Removes the private directories of workers on this machine that died without cleaning up (SIGKILL). */
  sweepDead(): string[] {
    const removed: string[] = [];
    for (const name of readdirSync(tmpdir())) {
      const m = /^yagent-worker-(\d+)-/.exec(name);
      if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }

  /** A workspace for one attempt, or why there is none (the task fails with that error). */
  async prepare(where: Where, jobId: string): Promise<Workspace | { problem: string }> {
    const own = join(this.root.path, `${jobId.replace(/[^A-Za-z0-9_.-]/g, '_')}-${++this.seq}`);
    mkdirSync(own, { mode: 0o700 });
    const index = join(own, 'snapshot.index');
    let dir: string;
    if (where.kind === 'path') {
      const problem = isAbsolute(where.path) ? workspaceProblem(where.path) : `workspace is not an absolute path: ${where.path}`;
      if (problem !== null) {
        rmSync(own, { recursive: true, force: true });
        return { problem: `${problem} (on worker ${workerId()})` };
      }
      dir = where.path;
    } else {
      dir = join(own, 'repo');
      const problem = await clone(where.repo, where.ref, dir);
      if (problem !== null) {
        rmSync(own, { recursive: true, force: true });
        return { problem };
      }
    }
    const before = await snapshot(dir, index);
    return {
      dir,
      diff: async () => {
        if (before === null) return null;
        const after = await snapshot(dir, index);
        if (after === null) return null;
        return runSafeGit(dir, ['diff', '--binary', '--no-ext-diff', '--no-textconv', '--no-color', before, after], { timeoutMs: GIT_MS, maxBuffer: 64 << 20 });
      },
      remove: () => rmSync(own, { recursive: true, force: true }),
    };
  }

  /** Removes the whole private directory (the worker is stopping). */
  remove(): void {
    this.root.remove();
  }
}

/** Who ran a task: HOST:PID unless `--name` says otherwise. */
let nameOverride: string | undefined;
export function setWorkerName(name: string | undefined): void {
  nameOverride = name;
}
export function workerId(): string {
  return nameOverride ?? `${hostname()}:${process.pid}`;
}

/** A clone at `ref` (branch, tag or commit): shallow when the server can, full otherwise. Null = done. */
async function clone(repo: string, ref: string | undefined, dir: string): Promise<string | null> {
  const cwd = tmpdir();
  const shallow = ['clone', '--quiet', '--depth', '1', '--no-recurse-submodules', ...(ref !== undefined ? ['--branch', ref] : []), '--', repo, dir];
  if ((await runSafeGit(cwd, shallow, { timeoutMs: CLONE_MS })) !== null) return null;
  rmSync(dir, { recursive: true, force: true });
  // a commit id is no --branch: full clone, then check it out
  if ((await runSafeGit(cwd, ['clone', '--quiet', '--no-checkout', '--', repo, dir], { timeoutMs: CLONE_MS })) === null) {
    return `git clone failed: ${maskUrl(repo)} (on worker ${workerId()}: check the URL and this machine's git credentials)`;
  }
  if (ref !== undefined && (await runSafeGit(dir, ['checkout', '--quiet', '--detach', ref], { timeoutMs: GIT_MS })) === null) {
    return `git checkout of "${ref}" failed in a clone of ${maskUrl(repo)} (on worker ${workerId()})`;
  }
  if (ref === undefined && (await runSafeGit(dir, ['checkout', '--quiet'], { timeoutMs: GIT_MS })) === null) {
    return `git checkout failed in a clone of ${maskUrl(repo)} (on worker ${workerId()})`;
  }
  return null;
}

/** The work tree (untracked files included, ignored ones not) as a tree id, through a private index. */
async function snapshot(dir: string, index: string): Promise<string | null> {
  const own = await runSafeGit(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'index'], { timeoutMs: GIT_MS });
  if (own === null) return null;
  const seed = own.trim();
  // seeding from the repository's index: `add -A` then re-hashes only the files whose stat changed
  if (!existsSync(index) && existsSync(seed)) copyFileSync(seed, index);
  if ((await runSafeGit(dir, ['add', '-A', '--ignore-errors'], { timeoutMs: GIT_MS, indexFile: index })) === null) return null;
  const tree = await runSafeGit(dir, ['write-tree'], { timeoutMs: GIT_MS, indexFile: index });
  return tree === null ? null : tree.trim();
}
