// A stream scrolled up stays where the user put it: the window is anchored to the entry (and line) at its top, so
// lines arriving below it only grow the `↑N` count; PgDn to the bottom (or End) follows the newest again.
// Both directions walk only the entries below the window top; their wrapped lines are cached (view.ts).
import type { Entry } from './conversation.js';
import { entryLines } from './view.js';

export interface Anchor {
  entry: Entry;
  /** Line of the entry (its header included) at the window's top. */
  line: number;
}

/** The anchor of the window `scroll` lines up from the bottom; null = following (scroll 0, or nothing to scroll). */
export function anchorAt(entries: readonly Entry[], width: number, height: number, scroll: number): Anchor | null {
  if (scroll <= 0) return null;
  const fromEnd = scroll + height; // the window's top line, counted from the end of the stream
  let n = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const len = entryLines(entries[i] as Entry, entries[i - 1], width).length;
    n += len;
    if (n >= fromEnd) return { entry: entries[i] as Entry, line: n - fromEnd };
  }
  // a stream shorter than the request: the top of the stream
  const first = entries[0];
  return first && n > height ? { entry: first, line: 0 } : null;
}

/** Lines below the window whose top is `anchor` (the scroll from the bottom that shows it); 0 = the anchor reached the
 *  last page (follow again); null = its entry is gone (cleared, a superseded draft). */
export function scrollOf(entries: readonly Entry[], width: number, height: number, anchor: Anchor): number | null {
  let n = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as Entry;
    const len = entryLines(e, entries[i - 1], width).length;
    if (e === anchor.entry) return Math.max(0, n + len - Math.min(anchor.line, Math.max(0, len - 1)) - height);
    n += len;
  }
  return null;
}
