// A write delegation run beside others (issue 26): its own worktree while it runs, merged back when it ends (done,
// failed, cancelled, crashed), one merge at a time, each merge one undo step; the report goes into its tool result.
import { publishWarning } from '../../runtime/log-event.js';
import type { ToolOutcome } from '../tools/types.js';
import type { Publish } from './loop-contract.js';
import type { RunSettings } from './run-types.js';
import { undoAfter, undoBefore, type UndoStore } from './undo-points.js';
import { mergeWriterTree } from './writer-merge.js';
import { closeWriterTree, openWriterTree, type WriterTree } from './writer-tree.js';

/** A call id as a branch-name segment. */
export function treeId(callId: string): string {
  return callId.replace(/[^A-Za-z0-9_-]/g, '-').slice(-40) || 'call';
}

export class WriterTrees {
  /** Merges of this run's writers, one at a time: each sees the tree the previous one left. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { parentAgent: string; settings: RunSettings; store: UndoStore; publish: Publish }) {}

  /** The delegation's tree, or null (a warning): it then works in the user's tree like a serial writer. */
  async open(callId: string, target: string): Promise<WriterTree | null> {
    const d = this.deps;
    try {
      const t = await openWriterTree(d.settings.workspace, treeId(callId));
      d.publish({ type: 'delegation_worktree', agent: d.parentAgent, child: target, callId, branch: t.branch, path: t.path });
      return t;
    } catch (e) {
      publishWarning(d.publish, 'worktree', `no worktree for ${target} (${callId}): it works in your tree`, e);
      return null;
    }
  }

  /** Merges the tree into the user's tree and removes it; the text the tool result carries. A merge that failed
   *  leaves the tree where it is (the next start keeps its work on a branch). */
  merge(t: WriterTree, callId: string, target: string, task: string): Promise<string> {
    const run = this.chain.then(() => this.mergeNow(t, callId, target, task));
    this.chain = run.catch(() => undefined); // the chain goes on; this merge's caller gets its report
    return run;
  }

  private async mergeNow(t: WriterTree, callId: string, target: string, task: string): Promise<string> {
    const d = this.deps;
    // the undo step is the merge itself: a snapshot of the user's tree right before it, the end right after
    const point = await undoBefore(d.store, d.settings, d.publish, callId, target, task, undefined, true);
    let report: string;
    try {
      const r = await mergeWriterTree(t);
      report = r.ok
        ? r.files.length > 0
          ? `[worktree ${t.branch}: merged into your working tree: ${r.files.join(', ')}]`
          : `[worktree ${t.branch}: no file changed]`
        : conflictReport(target, r.branch, r.files, r.hunks);
      d.publish({ type: 'delegation_worktree', agent: d.parentAgent, child: target, callId, branch: r.ok ? t.branch : r.branch, path: t.path, merged: r.ok ? 'merged' : 'conflict', files: r.files });
    } catch (e) {
      publishWarning(d.publish, 'worktree', `the work of ${target} (${callId}) was not merged`, e);
      await undoAfter(d.store, d.settings, d.publish, point);
      return `\n\nMERGE FAILED: the ${target} delegation's changes were not applied to the working tree (${e instanceof Error ? e.message : String(e)}). They stay in the worktree ${t.path} (branch ${t.branch}).`;
    }
    await undoAfter(d.store, d.settings, d.publish, point);
    await closeWriterTree(t).catch((e: unknown) => publishWarning(d.publish, 'worktree', `worktree ${t.path} not removed (the next start sweeps it)`, e));
    return `\n\n${report}`;
  }
}

/** A worktree's merge report at the end of the delegation's result (success or error alike). */
export function withReport(o: ToolOutcome, report: string): ToolOutcome {
  if (report === '') return o;
  if (o.kind === 'ok') return { ...o, content: o.content + report };
  if (o.kind === 'error') return { kind: 'error', error: { ...o.error, message: o.error.message + report } };
  return o;
}

/** What the Director reads when a result could not be merged: which files, the hunks, where the result is. */
export function conflictReport(target: string, branch: string, files: readonly string[], hunks: string): string {
  return [
    `MERGE CONFLICT: the ${target} delegation's changes were NOT applied to the working tree: ${files.join(', ')} changed here since it started (by another delegation or the user), on the same lines.`,
    `Nothing is lost: its whole result is kept on branch ${branch} (its changes: git diff ${branch}~1 ${branch}). Resolve it (e.g. delegate coding to apply those changes to the files as they are now) or drop it (git branch -D ${branch}).`,
    'Conflicting hunks (<<<<<<< your tree / ======= / >>>>>>> the delegation):',
    hunks,
  ].join('\n');
}
