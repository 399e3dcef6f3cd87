// Pure blackboard helpers that actors use too: handoff rendering, index injection, config → store options.
import { blackboardDisabled, type Env } from '../runtime/config/env.js';
import { DEFAULTS } from '../runtime/config/knobs.js';
import type { YagentConfig } from '../runtime/config/types.js';
import type { ChatMessage, Handoff } from '../runtime/protocol/index.js';
import type { GcOptions, IndexOptions } from './api.js';

/** Marks the injected index so the next injection can find and replace it (seed rule 1). */
export const INDEX_HEADER_PREFIX = '[blackboard index]';

/** Sentinel for "do not trim lines" (the config's explicit `index_line_chars = 0`). */
export const NO_TRIM = -1;

/** The normalised `[blackboard]` section: valves, ttl and caps were decided once, by key presence, in the config module. */
export type BlackboardConfig = YagentConfig['blackboard'];

/** The kill switch shared by write, read, index and GC (seed rule 2); decided by the config module's one function. */
export function blackboardEnabled(env: Env = process.env): boolean {
  return !blackboardDisabled(env);
}

/** Index options from the normalised config: explicit `index_line_chars = 0` becomes NO_TRIM, never a 0 budget. */
export function indexOptionsFromConfig(bb?: Pick<BlackboardConfig, 'enabled' | 'indexMaxNotes' | 'indexLineChars'>): IndexOptions {
  if (bb === undefined) return { maxNotes: DEFAULTS.indexMaxNotes, maxLineChars: DEFAULTS.indexLineChars };
  return { maxNotes: bb.enabled ? bb.indexMaxNotes : 0, maxLineChars: bb.indexLineChars === 0 ? NO_TRIM : bb.indexLineChars };
}

/** GC options from the normalised config: `ttl = "0"` arrives as ttlMs 0 (never by age); the cap is always positive. */
export function gcOptionsFromConfig(bb?: Pick<BlackboardConfig, 'ttlMs' | 'maxNotesPerBoard'>): GcOptions {
  if (bb === undefined) return { ttlMs: DEFAULTS.ttlMs, maxNotesPerBoard: DEFAULTS.maxNotesPerBoard };
  return { ttlMs: bb.ttlMs, maxNotesPerBoard: bb.maxNotesPerBoard };
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
