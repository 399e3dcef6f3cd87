// How undo points and restores read on a terminal and as JSON lines (yagent undo, attach undo, the TUI's /undo).
import type { UndoListItem, UndoRestoreResult } from '../../src/store/api.js';

/** One line per point: what `--json` prints (one object a line). */
export function undoJson(e: UndoListItem): string {
  return JSON.stringify({
    id: e.id,
    kind: e.kind,
    agent: e.agent,
    files: e.files,
    time: new Date(e.time).toISOString(),
    task_id: e.taskId,
    ...(e.callId !== undefined ? { call_id: e.callId } : {}),
    ...(e.label !== undefined ? { label: e.label } : {}),
    ended: e.after !== undefined,
    ...(e.undoneBy !== undefined ? { undone_by: e.undoneBy } : {}),
  });
}

/** The table of `yagent undo`, newest first (also the TUI's /undo and `attach undo TASK`). */
export function undoTable(items: UndoListItem[]): string {
  if (items.length === 0) return '(nothing to undo in this workspace: points are taken before write delegations and turns)\n';
  const rows = items.map((e) => [
    e.id,
    e.kind,
    e.agent,
    String(e.files.length),
    new Date(e.time).toISOString().slice(0, 19).replace('T', ' '),
    `${e.undoneBy !== undefined ? `(undone by ${e.undoneBy}) ` : e.after === undefined ? '(no end recorded) ' : ''}${e.files.slice(0, 3).join(', ')}${e.files.length > 3 ? ', …' : ''}${e.label ? ` · ${e.label.slice(0, 50)}` : ''}`,
  ]);
  const head = ['ID', 'KIND', 'AGENT', 'FILES', 'WHEN (UTC)', 'WHAT'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}

/** What a restore did or why it did nothing, in words. */
export function describeRestore(r: UndoRestoreResult): string {
  if (!r.ok) return `${r.message}\n`;
  const what = [`${r.restored.length} file(s) restored${r.restored.length ? `: ${r.restored.join(', ')}` : ''}`, `${r.removed.length} removed${r.removed.length ? `: ${r.removed.join(', ')}` : ''}`].join('; ');
  if (r.dryRun) return `${r.diff}${r.diff.endsWith('\n') || r.diff === '' ? '' : '\n'}undo ${r.id} would leave: ${what}\n`;
  return `undid ${r.id}: ${what}\n(undo this with: yagent undo ${r.undoId ?? ''})\n`;
}
