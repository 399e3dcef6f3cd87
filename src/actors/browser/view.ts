// The page as the model reads it: where it is, what happened on the way (dialogs, refused loads, a new tab or a
// fresh browser), then the page text with its numbered elements.
import type { Snapshot } from './page.js';
import { SNAPSHOT_MAX_CHARS } from './page.js';

export function formatView(s: Snapshot, notes: readonly string[]): string {
  const head = [`URL: ${s.url}`, `Title: ${s.title.trim() === '' ? '(none)' : s.title.trim()}`];
  if (notes.length > 0) head.push('Notes:', ...notes.map((n) => `- ${n}`));
  const count = s.refs === 0 ? 'no interactive elements' : `${s.refs} interactive element${s.refs === 1 ? '' : 's'}, numbered [n]`;
  head.push(`Page (${count}):`);
  const body = s.text.trim() === '' ? '(the page shows no text)' : s.text;
  const tail = s.cut ? `\n… (the page text was cut at about ${SNAPSHOT_MAX_CHARS} characters; elements further down still have their numbers)` : '';
  return `${head.join('\n')}\n${body}${tail}`;
}
