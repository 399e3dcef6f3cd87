// At start: the worktrees and writer branches a killed yagent left in this workspace's repository (issue 26).
import type { Event } from '../../runtime/protocol/index.js';
import { warnEvent } from '../../runtime/log-event.js';
import { hasWriterTrees, sweepWriterTrees } from './writer-tree.js';

/** Never fails the turn: a failed sweep is a warning (the next start tries again). A look at the git dir first, so a
 *  repository without a tree of ours runs no git at all. */
export async function sweepAtStart(workspace: string, publish: (e: Event) => void): Promise<void> {
  try {
    if (!(await hasWriterTrees(workspace))) return;
    const r = await sweepWriterTrees(workspace);
    if (r.removed.length === 0) return;
    const kept = r.kept.length > 0 ? `; the work they held is kept on ${r.kept.join(', ')}` : '';
    // work kept on a branch is the user's to pick up: said like a warning, so it shows without -v
    publish({ type: 'log', level: r.kept.length > 0 ? 'warn' : 'info', message: `removed ${r.removed.length} worktree(s) a stopped yagent left${kept}`, source: 'worktree' });
  } catch (e) {
    publish(warnEvent('worktree', 'stale worktrees not swept', e));
  }
}
