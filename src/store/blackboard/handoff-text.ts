// The blackboard's text the model reads: a handoff rendered to a budget, the index header, index injection.
import type { ChatMessage, Handoff } from '../../runtime/protocol/index.js';

/** Marks the injected index so the next injection can find and replace it (seed rule 1). */
export const INDEX_HEADER_PREFIX = '[blackboard index]';

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
