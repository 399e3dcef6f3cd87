// The derived, transient board index: the listing is revalidated on every call (never stale), only the newest N decoded.
import type { BoardIndex, IndexOptions, NoteMeta } from '../api.js';
import { INDEX_HEADER_PREFIX } from './handoff-text.js';
import type { NoteBoard } from './notes.js';

/** One line per note; however small the budget, the ref (the retrieval handle) survives. */
export function formatIndexLine(meta: NoteMeta, maxChars: number): string {
  const head = `- ${meta.ref} [${meta.handoff.status}]`;
  const full = `${head} ${meta.handoff.conclusion.replace(/\s+/g, ' ').trim()}`;
  if (maxChars < 0 || full.length <= maxChars) return full;
  const room = maxChars - head.length - 2;
  if (room <= 0) return `- ${meta.ref}`;
  return `${full.slice(0, head.length + 1 + room)}…`;
}

export async function buildIndex(board: NoteBoard, boardId: string, opts: IndexOptions): Promise<BoardIndex> {
  if (opts.maxNotes <= 0) return { text: '', listed: 0, total: 0, skipped: 0 };
  const files = await board.files(boardId);
  // the listing's directories as listed, before any head is read: a note written since then moves a signature
  const sig = board.trustedDirs(boardId);
  // file-name order == time order, so the newest N are the first N: decode only those
  const newest = files.slice(0, opts.maxNotes);
  const lines: string[] = [];
  let skipped = 0;
  for (const f of newest) {
    try {
      lines.push(formatIndexLine(await board.meta(boardId, f), opts.maxLineChars));
    } catch {
      skipped++;
    }
  }
  // an unreadable note is read again next time: such an index is never reused
  const dirs = sig && skipped === 0 ? { dirs: sig.map((d) => ({ path: d.path, ino: String(d.ino), mtimeNs: String(d.mtimeNs) })) } : {};
  if (files.length === 0) return { text: '', listed: 0, total: 0, skipped: 0, ...dirs };
  const header = `${INDEX_HEADER_PREFIX} board ${boardId}: newest ${newest.length} of ${files.length} note(s); read_note(ref) for the full text`;
  const tail = skipped > 0 ? [`(${skipped} note(s) could not be read and were skipped)`] : [];
  return { text: [header, ...lines, ...tail].join('\n'), listed: lines.length, total: files.length, skipped, ...dirs };
}
