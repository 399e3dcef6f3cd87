// Transient per-call context (note index, pending mentions): added to one request, idempotent by header.
import type { ChatMessage } from './wire-types.js';

export const NOTE_INDEX_HEADER = '[blackboard index]';
export const MENTIONS_HEADER = '[pending mentions]';
/** MCP tools changed since the run's system prompt listed them (a slow server became ready, list_changed). */
export const MCP_TOOLS_HEADER = '[mcp tools changed]';
export const TRANSIENT_HEADERS: readonly string[] = [NOTE_INDEX_HEADER, MENTIONS_HEADER, MCP_TOOLS_HEADER];

export function isTransient(m: ChatMessage): boolean {
  return (m.role === 'user' || m.role === 'system') && TRANSIENT_HEADERS.some((h) => m.content.startsWith(h));
}

/** A new array for this call: earlier injected blocks removed, the fresh ones appended; input untouched. */
export function injectTransient(messages: readonly ChatMessage[], extras: readonly ChatMessage[]): readonly ChatMessage[] {
  if (extras.length === 0 && !messages.some(isTransient)) return messages;
  return [...messages.filter((m) => !isTransient(m)), ...extras];
}
