// The Director's undo (tool undo_delegation) over the store API: find the point, restore, say what happened in words.
import type { Remote } from '../runtime/actor.js';
import type { StoreApi, UndoListItem } from './api.js';

export type UndoAccess = Pick<Remote<StoreApi>, 'undoList' | 'undoRestore'>;

function line(e: UndoListItem): string {
  const undone = e.undoneBy !== undefined ? ' (undone)' : '';
  return `${e.id} ${e.kind} ${e.agent}${e.callId ? ` call ${e.callId}` : ''}: ${e.files.length} file(s) ${e.files.slice(0, 5).join(', ')}${undone}`;
}

/** `id` (an undo point or a delegate_* call id) or, absent, this task's newest delegation not undone yet. */
export async function undoForTool(store: UndoAccess, workspace: string, taskId: string, id: string | undefined, dryRun: boolean): Promise<{ ok: boolean; text: string }> {
  let target = id;
  if (target === undefined) {
    const list = await store.undoList(workspace);
    const last = list.find((e) => e.kind === 'delegation' && e.taskId === taskId && e.undoneBy === undefined);
    if (last === undefined) {
      const recent = list.slice(0, 8).map(line).join('\n');
      return { ok: false, text: `No delegation of this task can be undone. Recent undo points:\n${recent || '(none)'}` };
    }
    target = last.id;
  }
  const r = await store.undoRestore(workspace, target, { dryRun });
  if (!r.ok) {
    const why = r.reason === 'changed_since' ? ' Tell the user which files changed; they decide (yagent undo can show the diff).' : '';
    return { ok: false, text: `${r.message}.${why}` };
  }
  const what = `restored ${r.restored.length ? r.restored.join(', ') : 'no file'}; removed ${r.removed.length ? r.removed.join(', ') : 'no file'}`;
  if (r.dryRun) return { ok: true, text: `Undo of ${r.id} would have: ${what}.\n${r.diff.slice(0, 4000)}` };
  return { ok: true, text: `Undid ${r.id}: ${what}. This undo is itself undo point ${r.undoId ?? '?'} (undo it to put the changes back).` };
}
