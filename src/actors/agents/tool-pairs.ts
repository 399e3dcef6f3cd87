// Repairs a replayed conversation so every tool call has exactly one result, right after its call:
// the LAST recorded result of a call wins (a resumed delegation's result replaces the earlier "abandoned"),
// a call without any result gets an explicit "not recorded" result, results without a call are dropped.
import type { ChatMessage } from './wire-types.js';

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

export const NOT_RECORDED =
  'This tool call was interrupted before its result was recorded (the session was resumed). It may or may not have run: check its effect before repeating it.';

export function repairToolPairs(messages: readonly ChatMessage[]): ChatMessage[] {
  const last = new Map<string, ToolMessage>();
  for (const m of messages) if (m.role === 'tool') last.set(m.toolCallId, m);
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (m.role === 'tool') continue;
    out.push(m);
    if (m.role !== 'assistant' || !m.toolCalls) continue;
    for (const c of m.toolCalls) out.push(last.get(c.id) ?? { role: 'tool', toolCallId: c.id, name: c.name, content: NOT_RECORDED });
  }
  return out;
}

/** The tool calls of the conversation with the result that stands (last wins), in call order. */
export function callsWithResults(messages: readonly ChatMessage[]): { id: string; name: string; arguments: string; result: string | null }[] {
  const last = new Map<string, string>();
  for (const m of messages) if (m.role === 'tool') last.set(m.toolCallId, m.content);
  return messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => ({ ...c, result: last.get(c.id) ?? null })) : []));
}
