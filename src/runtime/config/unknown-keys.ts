// Unknown keys and sections: each is named once with the closest known key ("did you mean …?").
import { closest, distance } from 'fastest-levenshtein';
import { REMOVED_KEYS } from './removed-keys.js';
import { SCHEMA_KEYS, schemaKeyPaths, type KeyNode } from './schema-keys.js';
import { TOOL_LLM_NAMES } from './types.js';

const removed = REMOVED_KEYS.map((k) => k.path.split('.'));

function isRemoved(path: string[]): boolean {
  return removed.some((r) => r.length === path.length && r.every((p, i) => p === '*' || p === path[i]));
}

/** The nearest name among `candidates`, or undefined when nothing is plausibly a typo of `name`. */
export function suggest(name: string, candidates: string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const best = closest(name, candidates);
  // a third of the name (at least 2 edits), or one name containing the other ("timeout" → "request_timeout")
  const near = distance(name, best) <= Math.max(2, Math.floor(name.length / 3)) || best.includes(name) || name.includes(best);
  return near ? best : undefined;
}

/** `did you mean …?` with the last name of `path` replaced by the nearest candidate, or undefined. */
function didYouMean(path: string[], candidates: string[]): string | undefined {
  const near = suggest(path.at(-1) ?? '', candidates);
  return near !== undefined ? `did you mean "${[...path.slice(0, -1), near].join('.')}"?` : undefined;
}

/** The same key name written in another section (`[agent] timeout` → `llm.timeout`). */
function elsewhere(name: string): string | undefined {
  const p = schemaKeyPaths().find((k) => k.endsWith(`.${name}`) && !k.includes('*'));
  return p !== undefined ? `did you mean "${p}"?` : undefined;
}

function walk(doc: Record<string, unknown>, n: KeyNode, at: string[], out: string[]): void {
  for (const [k, v] of Object.entries(doc)) {
    const path = [...at, k];
    if (isRemoved(path)) continue; // named by removedKeyWarnings with its replacement
    const child = n.children.get(k) ?? n.any;
    const isTable = typeof v === 'object' && v !== null && !Array.isArray(v);
    if (child === undefined) {
      out.push(unknownLine(path, isTable, n));
      continue;
    }
    if (isTable && (child.children.size > 0 || child.any !== undefined)) walk(v as Record<string, unknown>, child, path, out);
  }
}

function unknownLine(path: string[], isTable: boolean, parent: KeyNode): string {
  const dotted = path.join('.');
  const hint = didYouMean(path, [...parent.children.keys()]) ?? elsewhere(path.at(-1) ?? '') ?? 'it is ignored';
  const what = isTable && path.length === 1 ? `unknown config section [${dotted}]` : `unknown config key "${dotted}"`;
  return `${what}: ${hint}`;
}

/** One warning per unknown key or section of the raw document (removed keys are named elsewhere). */
export function unknownKeyWarnings(doc: unknown): string[] {
  if (typeof doc !== 'object' || doc === null) return [];
  const out: string[] = [];
  walk(doc as Record<string, unknown>, SCHEMA_KEYS, [], out);
  return [...out, ...unknownToolWarnings(doc as Record<string, unknown>)];
}

/** `[tools.llm]` takes any table name in the schema (`<tool>.use_provider`): a name no tool has is a provider choice
 *  nothing reads, so it is named with the closest tool that has a model of its own. */
function unknownToolWarnings(doc: Record<string, unknown>): string[] {
  const tools = (doc['tools'] as { llm?: unknown } | undefined)?.llm;
  if (typeof tools !== 'object' || tools === null) return [];
  const known: string[] = [...TOOL_LLM_NAMES];
  const out: string[] = [];
  for (const name of Object.keys(tools)) {
    if (name === 'use_provider' || known.includes(name)) continue;
    const hint = didYouMean(['tools', 'llm', name], known) ?? `no tool has a model of its own by that name (only ${known.join(', ')} does); it is ignored`;
    out.push(`unknown tool "tools.llm.${name}": ${hint}`);
  }
  return out;
}
