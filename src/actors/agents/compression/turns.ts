// Where the list may be cut: only before an assistant message, so a tool call and its results stay together.
import type { ChatMessage } from '../wire-types.js';

/** Index where the last `turns` assistant turns begin (each turn = an assistant message + what follows it);
 *  1 (just after the system message) when there are fewer. Cutting here never splits a call from its result. */
export function recentStart(messages: readonly ChatMessage[], turns: number): number {
  let seen = 0;
  for (let i = messages.length - 1; i >= 1; i--) {
    if (messages[i]?.role === 'assistant' && ++seen === turns) return i;
  }
  return Math.min(1, messages.length);
}

/** Every tool call in the list has exactly one result and every result its call (the provider's 400 otherwise). */
export function pairsIntact(messages: readonly ChatMessage[]): boolean {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      if (open.size > 0) return false;
      for (const c of m.toolCalls ?? []) open.add(c.id);
    } else if (m.role === 'tool') {
      if (!open.delete(m.toolCallId)) return false;
    } else if (open.size > 0) return false;
  }
  return open.size === 0;
}
