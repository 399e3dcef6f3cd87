// A session's git identity (commit, branch, dirty) for session_meta: one `git status`, bounded, never fatal.
import { gitRootAbove } from '../data-paths.js';
import { runSafeGit } from '../../runtime/safe-git.js';

export interface GitIdentity {
  commit?: string;
  branch?: string;
  dirty: boolean;
}

export interface GitReadOptions {
  /** A hung git (network filesystem, huge index) costs at most this; then the identity is null. */
  timeoutMs?: number;
  /** The git binary (tests point it at a stand-in). */
  git?: string;
}

export const GIT_IDENTITY_TIMEOUT_MS = 2_000;

/** Parses `git status --porcelain=v2 --branch`: `# branch.oid`, `# branch.head`, then one line per change. */
export function parseGitStatus(out: string): GitIdentity {
  const id: GitIdentity = { dirty: false };
  for (const line of out.split('\n')) {
    if (line.startsWith('# branch.oid ')) {
      const oid = line.slice(13).trim();
      if (oid !== '(initial)') id.commit = oid;
    } else if (line.startsWith('# branch.head ')) {
      const head = line.slice(14).trim();
      if (head !== '(detached)') id.branch = head;
    } else if (line !== '' && !line.startsWith('#')) id.dirty = true;
  }
  return id;
}

/** The git identity of `cwd`, or null when it is not in a repository, git is missing, or it took too long. The
 *  repository's own config runs nothing (`runSafeGit`); submodules are not entered (their configs are not listed). */
export async function readGitIdentity(cwd: string, opts: GitReadOptions = {}): Promise<GitIdentity | null> {
  // no `.git` from cwd up: git status would fail and the identity be null — known without its two spawns (the config
  // listing and the status), each a fork of the whole store process while the first steps run (issue 29)
  if (gitRootAbove(cwd) === null) return null;
  const args = ['status', '--porcelain=v2', '--branch', '--untracked-files=no', '--ignore-submodules=all'];
  const out = await runSafeGit(cwd, args, { timeoutMs: opts.timeoutMs ?? GIT_IDENTITY_TIMEOUT_MS, git: opts.git });
  return out === null ? null : parseGitStatus(out);
}

/** Concurrent opens in one workspace (parallel delegations) share one read. */
export class GitIdentityReader {
  private inFlight = new Map<string, Promise<GitIdentity | null>>();

  constructor(private readonly opts: GitReadOptions = {}) {}

  read(cwd: string): Promise<GitIdentity | null> {
    let p = this.inFlight.get(cwd);
    if (!p) {
      p = readGitIdentity(cwd, this.opts).finally(() => this.inFlight.delete(cwd));
      this.inFlight.set(cwd, p);
    }
    return p;
  }
}
