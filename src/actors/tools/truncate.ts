// Cuts a tool result to the model's budget the way the tool's `truncation` tag says, with a visible marker.
import type { CapabilityTags } from './types.js';

export const DEFAULT_MAX_RESULT_CHARS = 40_000;
/** The share of the model's window one tool result may take (Codex CLI / Claude Code: one result never fills the context). */
export const RESULT_WINDOW_SHARE = 0.25;
/** Chars per token the cap assumes: under chars/4, because local servers' tokenizers count code denser than tiktoken. */
const CHARS_PER_TOKEN = 3;
/** Never cut a result shorter than this, whatever the window (a tiny window still gets a useful head). */
const MIN_RESULT_CHARS = 2_000;

/** Of the room the compression threshold leaves above the fixed part (system prompt, tool definitions), one result may
 *  take this share (a small window whose fixed part is most of it gets a short result, not a compression). */
export const RESULT_ROOM_SHARE = 0.5;

/** The cap of one tool result (chars) for a model with `windowTokens` (undefined = not known: the default) and, when
 *  known, `roomTokens` left under the compression threshold above the fixed part. */
export function resultCharsFor(windowTokens: number | undefined, roomTokens?: number): number {
  if (windowTokens === undefined || !(windowTokens > 0)) return DEFAULT_MAX_RESULT_CHARS;
  const tokens = Math.min(windowTokens * RESULT_WINDOW_SHARE, roomTokens !== undefined ? Math.max(0, roomTokens) * RESULT_ROOM_SHARE : Infinity);
  return Math.min(DEFAULT_MAX_RESULT_CHARS, Math.max(MIN_RESULT_CHARS, Math.floor(tokens * CHARS_PER_TOKEN)));
}

export function truncationMarker(cut: number): string {
  return `\n[… ${cut} characters truncated …]\n`;
}

const KEPT = { head: 'the first', tail: 'the last', head_tail: 'the first and last' } as const;

/** The marker of a result the adapter cut: what was cut, and how to get the rest. */
export function resultCutNote(cut: number, total: number, mode: Exclude<CapabilityTags['truncation'], 'none'>): string {
  return (
    `\n[… ${cut} of ${total} characters cut here to fit the model's context window (kept ${KEPT[mode]} ${total - cut}). ` +
    'To see the rest, ask for less at a time: a narrower grep pattern or path, read_file with start_line and end_line, or a command whose output is filtered (head, tail, grep, wc). …]\n'
  );
}

export function truncateText(text: string, mode: CapabilityTags['truncation'], max = DEFAULT_MAX_RESULT_CHARS): string {
  if (mode === 'none' || text.length <= max) return text;
  const cut = text.length - max;
  const note = resultCutNote(cut, text.length, mode);
  switch (mode) {
    case 'head':
      return text.slice(0, max) + note;
    case 'tail':
      return note + text.slice(text.length - max);
    case 'head_tail': {
      const half = Math.floor(max / 2);
      return text.slice(0, half) + note + text.slice(text.length - (max - half));
    }
  }
}
