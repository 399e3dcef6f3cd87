// Pure blackboard helpers that actors use too: handoff rendering, index injection, config valves.
import type { ChatMessage, Handoff } from '../runtime/protocol/index.js';
import type { GcOptions, IndexOptions } from './api.js';

/** Marks the injected index so the next injection can find and replace it (seed rule 1). */
export const INDEX_HEADER_PREFIX = '[blackboard index]';

export const DEFAULT_INDEX_MAX_NOTES = 12;
export const DEFAULT_INDEX_LINE_CHARS = 160;
/** Sentinel for "do not trim lines" (the config's explicit `index_line_chars = 0`). */
export const NO_TRIM = -1;
export const DEFAULT_TTL_MS = 168 * 3600 * 1000;
export const DEFAULT_MAX_NOTES_PER_BOARD = 200;

/** The one kill-switch predicate, shared by write, read, index and GC (seed rule 2). */
export function blackboardEnabled(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env.YAGENT_BLACKBOARD !== '0';
}

const has = (o: Record<string, unknown> | undefined, k: string): o is Record<string, unknown> => o !== undefined && Object.prototype.hasOwnProperty.call(o, k);

/** Valves decided by key presence, never by zero value: absent → default; explicit 0 has meaning. */
export function indexOptionsFromConfig(section: Record<string, unknown> | undefined): IndexOptions {
  let maxNotes = DEFAULT_INDEX_MAX_NOTES;
  if (has(section, 'index_max_notes') && typeof section.index_max_notes === 'number' && section.index_max_notes >= 0) {
    maxNotes = section.index_max_notes;
  }
  let maxLineChars = DEFAULT_INDEX_LINE_CHARS;
  if (has(section, 'index_line_chars') && typeof section.index_line_chars === 'number' && section.index_line_chars >= 0) {
    maxLineChars = section.index_line_chars === 0 ? NO_TRIM : section.index_line_chars;
  }
  return { maxNotes, maxLineChars };
}

/** `ttl = "0"` (or 0) means never clean; absent means the default week. */
export function gcOptionsFromConfig(section: Record<string, unknown> | undefined): GcOptions {
  let ttlMs = DEFAULT_TTL_MS;
  if (has(section, 'ttl')) {
    const v = section.ttl;
    if (v === 0 || v === '0') ttlMs = 0;
    else if (typeof v === 'string') ttlMs = parseDuration(v) ?? DEFAULT_TTL_MS;
  }
  const cap = has(section, 'max_notes_per_board') ? section.max_notes_per_board : undefined;
  return { ttlMs, maxNotesPerBoard: typeof cap === 'number' && cap > 0 ? cap : DEFAULT_MAX_NOTES_PER_BOARD };
}

/** Go-style durations: `168h`, `30m`, `1h30m`, `45s`. */
export function parseDuration(s: string): number | null {
  const parts = [...s.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== s.trim()) return null;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  return parts.reduce((acc, p) => acc + Number(p[1]) * unit[p[2]], 0);
}

/** Handoff as text. Over budget, facts are dropped one by one from the end; the conclusion is never cut. */
export function renderHandoff(h: Handoff, budgetChars = 0): string {
  const head = `[${h.status}] ${h.agent}: ${h.conclusion}`;
  const tail: string[] = [];
  if (h.artifacts.length > 0) tail.push(`artifacts: ${h.artifacts.join(', ')}`);
  if (h.degraded) tail.push(`(handoff ${h.degraded})`);
  const facts = [...h.facts];
  for (;;) {
    const text = [head, ...facts.map((f) => `- ${f}`), ...tail].join('\n');
    if (budgetChars <= 0 || text.length <= budgetChars || facts.length === 0) return text;
    facts.pop();
  }
}

/** Replaces the previously injected index (found by its header prefix) so re-injection is idempotent.
 *  Returns a new list for this one LLM call; the caller must never store it in memory or the rollout. */
export function injectIndex(messages: readonly ChatMessage[], indexText: string): ChatMessage[] {
  const out = messages.filter((m) => !(m.role === 'user' && m.content.startsWith(INDEX_HEADER_PREFIX)));
  if (indexText.length === 0) return out;
  const at = out.findIndex((m) => m.role !== 'system');
  const msg: ChatMessage = { role: 'user', content: indexText };
  if (at < 0) out.push(msg);
  else out.splice(at, 0, msg);
  return out;
}
