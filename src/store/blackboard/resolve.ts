// context_refs → ContextPack: emphasised notes inlined in full (within a budget), unresolved refs reported.
import type { ContextPack } from '../api.js';
import { renderHandoff } from './handoff-text.js';
import type { NoteBoard } from './notes.js';

export const MAX_REFS = 10;
const DEFAULT_BUDGET = 8000;
const EXCERPT_CHARS = 400;

/** Accepts `agent/stem` note refs and `agent:repo` / `repo_agent` agent refs (newest note of that agent). */
export async function resolveRefs(
  board: NoteBoard,
  boardId: string,
  refs: readonly string[],
  opts: { max?: number; budgetChars?: number } = {},
): Promise<ContextPack> {
  const max = opts.max ?? MAX_REFS;
  let budget = opts.budgetChars ?? DEFAULT_BUDGET;
  const unique = [...new Set(refs.map((r) => r.trim()).filter((r) => r.length > 0))].slice(0, max);
  const pack: ContextPack = { notes: [], unresolved: [] };
  for (const ref of unique) {
    let note = ref.includes('/') ? await board.read(boardId, ref) : null;
    if (!note && !ref.includes('/')) {
      const byAgent = await board.listByAgent(boardId, ref, 1);
      const newest = byAgent.notes[0];
      if (newest) note = await board.read(boardId, newest.ref);
    }
    if (!note) {
      pack.unresolved.push(ref);
      continue;
    }
    const full = `${renderHandoff(note.meta.handoff)}\n\n${note.body}`;
    // over budget, keep an excerpt and the ref rather than dropping the note
    const truncated = full.length > budget;
    const text = truncated ? `${full.slice(0, Math.max(EXCERPT_CHARS, budget))}… (truncated; read_note ${note.meta.ref})` : full;
    budget = Math.max(0, budget - text.length);
    pack.notes.push({ ref: note.meta.ref, agent: note.meta.agent, text, truncated });
  }
  return pack;
}
