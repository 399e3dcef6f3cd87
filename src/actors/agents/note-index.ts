// The transient note index: rebuilt from the board for every LLM call, never stored (pitfall 11).
// Asked per call through boardIndexReader: the store's answer is reused only while its directory signatures hold,
// so a note written before the call is in it.
import type { StoreApi } from '../../store/api.js';
import { publishWarning } from '../../runtime/log-event.js';
import type { ChatMessage } from './wire-types.js';
import type { Publish } from './loop-contract.js';
import { NOTE_INDEX_HEADER } from './transient.js';

export interface IndexSettings {
  boardId: string;
  indexMaxNotes: number;
  indexLineChars: number;
}

/** One message for this call, or none when the index is off or the board is empty. */
/** A failed build is published as a warning (`publish`) and the call goes on without the index. */
export async function noteIndexMessage(store: Pick<StoreApi, 'buildIndex'>, s: IndexSettings, publish: Publish): Promise<ChatMessage[]> {
  if (s.indexMaxNotes === 0) return [];
  const idx = await store
    .buildIndex(s.boardId, { maxNotes: s.indexMaxNotes, maxLineChars: s.indexLineChars })
    .catch((e: unknown) => (publishWarning(publish, 'buildIndex', `note index of board ${s.boardId} left out of this call`, e), null));
  if (!idx || idx.text.trim() === '') return [];
  return [
    {
      role: 'user',
      content: `${NOTE_INDEX_HEADER} notes on this task's board (read one with read_note, pass refs in context_refs):\n${idx.text.trim()}`,
    },
  ];
}
