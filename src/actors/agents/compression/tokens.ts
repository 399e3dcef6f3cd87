// Synchronous token figures for the compression tiers, cached per message object: the chars/4 estimate the
// tiers use to choose what to cut, and a hard upper bound that lets the meter skip a real count.
// The threshold decision itself uses the real counts (`TokenCounter` via `ContextMeter`), never these.
import { messageText, toolText } from '../../llm/tokens.js';
import type { ChatMessage, ToolDef } from '../wire-types.js';

const PER_MESSAGE_OVERHEAD = 4;
const estimates = new WeakMap<ChatMessage, number>();
const bounds = new WeakMap<ChatMessage, number>();

export function messageTokens(m: ChatMessage): number {
  let n = estimates.get(m);
  if (n === undefined) estimates.set(m, (n = Math.ceil(messageText(m).length / 4) + PER_MESSAGE_OVERHEAD));
  return n;
}

/** The chars/4 estimate of a list (what the tiers aim with). */
export function tokensOf(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) total += messageTokens(m);
  return total;
}

/** No byte-level BPE (tiktoken) count exceeds this: every token is at least one UTF-8 byte. */
export function tokenUpperBound(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) {
    let n = bounds.get(m);
    if (n === undefined) bounds.set(m, (n = Buffer.byteLength(messageText(m), 'utf8') + PER_MESSAGE_OVERHEAD));
    total += n;
  }
  return total;
}

const toolBytes = new WeakMap<ToolDef, number>();
function bytesOfTool(t: ToolDef): number {
  let n = toolBytes.get(t);
  if (n === undefined) toolBytes.set(t, (n = Buffer.byteLength(toolText(t), 'utf8')));
  return n;
}

/** Tool definitions as sent (name, description, schema): a byte bound like `tokenUpperBound`. */
export function toolsUpperBound(tools: readonly ToolDef[]): number {
  let total = 0;
  for (const t of tools) total += bytesOfTool(t);
  return total;
}

/** The chars/4 estimate of tool definitions (bytes stand in for chars: schemas are ASCII). */
export function toolsEstimate(tools: readonly ToolDef[]): number {
  return Math.ceil(toolsUpperBound(tools) / 4);
}
