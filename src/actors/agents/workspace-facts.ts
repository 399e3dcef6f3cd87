// Workspace facts of a checkpoint (git HEAD, branch, a digest of each file the delegation touched) and what changed
// since: a delegation is replayed (B) only onto the tree it last saw, else its parent gets the report (C).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runSafeGit } from '../../runtime/safe-git.js';
// crypto loads on the first checkpoint, not with the agent worker's boot
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import type { WorkspaceFacts } from './wire-types.js';

/** A hung git (network filesystem) costs a checkpoint at most this; then HEAD and branch are unknown (null). */
const GIT_TIMEOUT_MS = 2_000;
/** Touched files digested per checkpoint: a delegation that rewrote a whole tree is checked on its first ones. */
export const MAX_FACT_FILES = 200;

/** HEAD and branch (null outside a repository, before its first commit, or detached for the branch), and the sha256
 *  of each touched file ('missing' for a file that is not there). Never throws: git runs through `runSafeGit`. */
export async function workspaceFacts(cwd: string, files: readonly string[], git?: string): Promise<WorkspaceFacts> {
  const [rev, digests] = await Promise.all([
    runSafeGit(cwd, ['rev-parse', 'HEAD', '--abbrev-ref', 'HEAD'], { timeoutMs: GIT_TIMEOUT_MS, ...(git !== undefined ? { git } : {}) }),
    Promise.all(files.slice(0, MAX_FACT_FILES).map(async (path) => ({ path, sha256: await digest(resolve(cwd, path)) }))),
  ]);
  const [head, branch] = (rev ?? '').trim().split('\n');
  return { head: head && /^[0-9a-f]{7,64}$/.test(head) ? head : null, branch: branch && branch !== 'HEAD' ? branch : null, files: digests };
}

async function digest(abs: string): Promise<string> {
  try {
    return nodeCrypto().createHash('sha256').update(await readFile(abs)).digest('hex');
  } catch {
    return 'missing'; // unreadable or absent: either way not the file the checkpoint saw
  }
}

/** What differs between the checkpoint's facts and the workspace's now, one phrase each (empty: unchanged). */
export function workspaceChanges(then: WorkspaceFacts, now: WorkspaceFacts): string[] {
  const out: string[] = [];
  if (then.head !== now.head) out.push(`HEAD moved from ${short(then.head)} to ${short(now.head)}`);
  if (then.branch !== now.branch) out.push(`the branch changed from ${then.branch ?? '(detached)'} to ${now.branch ?? '(detached)'}`);
  const current = new Map(now.files.map((f) => [f.path, f.sha256]));
  for (const f of then.files) {
    const sha = current.get(f.path);
    if (sha === undefined || sha === f.sha256) continue;
    out.push(sha === 'missing' ? `${f.path} was deleted` : f.sha256 === 'missing' ? `${f.path} was created` : `${f.path} was modified`);
  }
  return out;
}

function short(head: string | null): string {
  return head === null ? 'none' : head.slice(0, 12);
}
