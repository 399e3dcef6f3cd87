// The transient note index: rebuilt from the board for every LLM call, never stored (pitfall 11).
import type { StoreApi } from '../../store/api.js';
import type { ChatMessage } from './port-types.js';
import { NOTE_INDEX_HEADER } from './transient.js';

export interface IndexSettings {
  boardId: string;
  indexMaxNotes: number;
  indexLineChars: number;
}

/** One message for this call, or none when the index is off or the board is empty. */
export async function noteIndexMessage(store: Pick<StoreApi, 'buildIndex'>, s: IndexSettings): Promise<ChatMessage[]> {
  if (s.indexMaxNotes === 0) return [];
  const idx = await store.buildIndex(s.boardId, { maxNotes: s.indexMaxNotes, maxLineChars: s.indexLineChars }).catch(() => null);
  if (!idx || idx.text.trim() === '') return [];
  return [
    {
      role: 'user',
      content: `${NOTE_INDEX_HEADER} notes on this task's board (read one with read_note, pass refs in context_refs):\n${idx.text.trim()}`,
    },
  ];
}

/**
 * Per-run cache of the index text: rebuilt when this run's delegations wrote a note (exact for the
 * Director: nested notes land before their delegation returns) or after `maxAgeMs` (siblings' notes).
 */
export class NoteIndexCache {
  private cached: { at: number; version: number; messages: ChatMessage[] } | null = null;
  private version = 0;

  constructor(
    private readonly store: Pick<StoreApi, 'buildIndex'>,
    private readonly settings: IndexSettings,
    private readonly now: () => number,
    private readonly maxAgeMs = 1000,
  ) {}

  invalidate(): void {
    this.version++;
  }

  async messages(): Promise<ChatMessage[]> {
    const c = this.cached;
    if (c && c.version === this.version && this.now() - c.at < this.maxAgeMs) return c.messages;
    const version = this.version;
    const messages = await noteIndexMessage(this.store, this.settings);
    this.cached = { at: this.now(), version, messages };
    return messages;
  }
}
