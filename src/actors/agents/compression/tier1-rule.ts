// Tier 1 (rule): cut old, low-value tool results down to their head, lowest value and oldest first.
import type { ChatMessage } from '../wire-types.js';
import { tokensOf } from './tokens.js';

/** Results of these tools are the cheapest to lose: the model can read the file or list the dir again. */
const LOW_VALUE = new Set(['read_file', 'list_dir', 'glob', 'grep', 'run_bash', 'read_note', 'read_artifact', 'list_notes', 'load_tool']);
/** Design and thinking outputs (and the exit handoff) are never cut. */
const PROTECTED = /think|design|^agent_exit$/i;

export const TRUNCATION_MARK = '[truncated by context compression:';

export function toolPriority(name: string): number | null {
  if (PROTECTED.test(name)) return null;
  return LOW_VALUE.has(name) ? 0 : 1;
}

const MARK_AT = `\n${TRUNCATION_MARK}`;

/** A result an earlier cut already shortened: its kept head and the tokens that cut removed. */
function splitCut(text: string): { head: string; removed: number } {
  const at = text.startsWith(TRUNCATION_MARK) ? 0 : text.lastIndexOf(MARK_AT);
  if (at < 0) return { head: text, removed: 0 };
  const removed = Number(/(\d+) tokens removed\]$/.exec(text)?.[1] ?? 0);
  return { head: text.slice(0, at), removed };
}

/** The head of `text` worth about `keepTokens` tokens plus a marker saying how much went (a cut result can be cut again,
 *  shorter: the marker then counts both cuts). */
export function cutToTokens(text: string, keepTokens: number): string {
  const keepChars = Math.max(0, keepTokens * 4);
  const { head, removed } = splitCut(text);
  if (head.length <= keepChars) return text;
  return `${head.slice(0, keepChars)}\n${TRUNCATION_MARK} ${removed + Math.ceil((head.length - keepChars) / 4)} tokens removed]`;
}

export interface RuleOptions {
  keepTokens: number;
  /** Stop once the list measures at most this many tokens (0 = cut every candidate). */
  target: number;
  /** Results at or after this index (the recent turns) are left alone. */
  protectFrom: number;
}

/** Returns a new list (same objects where nothing changed) and the tokens it measures; `changed` false = nothing to cut. */
export function ruleCompress(messages: readonly ChatMessage[], o: RuleOptions): { messages: ChatMessage[]; changed: boolean; tokens: number } {
  const out = [...messages];
  let tokens = tokensOf(out);
  const candidates: { i: number; p: number }[] = [];
  for (let i = 0; i < Math.min(o.protectFrom, out.length); i++) {
    const m = out[i];
    if (m?.role !== 'tool') continue;
    const p = toolPriority(m.name);
    // a result cut before is a candidate again only when this cut keeps less of it
    if (p !== null && splitCut(m.content).head.length > o.keepTokens * 4) candidates.push({ i, p });
  }
  candidates.sort((a, b) => a.p - b.p || a.i - b.i);
  let changed = false;
  for (const { i } of candidates) {
    if (o.target > 0 && tokens <= o.target) break;
    const m = out[i];
    if (m?.role !== 'tool') continue;
    const cut: ChatMessage = { ...m, content: cutToTokens(m.content, o.keepTokens) };
    tokens += tokensOf([cut]) - tokensOf([m]);
    out[i] = cut;
    changed = true;
  }
  return { messages: out, changed, tokens };
}
