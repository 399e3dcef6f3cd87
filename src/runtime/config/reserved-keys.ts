// Keys the schema accepts for features that do not exist yet: setting one away from its template default warns.
import { parse } from 'smol-toml';
import { CONFIG_TEMPLATE } from './template.js';

/** Dotted path (`*` = any table name) → the later feature that will read it. Mirrored by test/config/key-table.ts. */
export const RESERVED_KEYS: Readonly<Record<string, string>> = {
  'blackboard.summary_max_runes': 'handoff summaries',
  'resume.replay_token_budget': 'pause / replay / degraded handoff',
};

let templateDoc: Record<string, unknown> | undefined;

/** The template's value at a concrete path (its values ARE the defaults), or undefined. */
function templateValue(parts: string[]): unknown {
  templateDoc ??= parse(CONFIG_TEMPLATE) as Record<string, unknown>;
  let cur: unknown = templateDoc;
  for (const p of parts) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[p] : undefined;
  return cur;
}

/** Concrete paths in `doc` matching a pattern with `*` segments, with their values. */
function matches(doc: unknown, parts: string[], at: string[] = []): { path: string[]; value: unknown }[] {
  if (parts.length === 0) return [{ path: at, value: doc }];
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [];
  const [head, ...rest] = parts as [string, ...string[]];
  const rec = doc as Record<string, unknown>;
  const keys = head === '*' ? Object.keys(rec) : Object.hasOwn(rec, head) ? [head] : [];
  return keys.flatMap((k) => matches(rec[k], rest, [...at, k]));
}

/** One warning per reserved key whose value differs from the template default (a default changes nothing either way). */
export function reservedKeyWarnings(doc: unknown): string[] {
  const out: string[] = [];
  for (const [pattern, feature] of Object.entries(RESERVED_KEYS)) {
    for (const m of matches(doc, pattern.split('.'))) {
      if (JSON.stringify(m.value) === JSON.stringify(templateValue(m.path))) continue;
      out.push(`config key "${m.path.join('.')}" is reserved for ${feature} (not built yet): its value changes nothing today`);
    }
  }
  return out;
}
