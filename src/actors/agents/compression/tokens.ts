// Synchronous token figures for the compression tiers, cached per message object: the chars/4 estimate the
// tiers use to choose what to cut, and a hard upper bound that lets the meter skip a real count.
// The threshold decision itself uses the real counts (`TokenCounter` via `ContextMeter`), never these.
import { messageText } from '../../llm/tokens.js';
import type { ChatMessage } from '../wire-types.js';

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
