// "Tokens of these messages" for the compression tiers: synchronous, cached per message object.
// The tiers run inside one step and cannot wait on the CPU pool per message, so they use the chars/4 estimate;
// the threshold meter anchors on the provider's reported input tokens (compressor.observe), which are exact.
import { messageText } from '../../llm/tokens.js';
import type { ChatMessage } from '../port-types.js';

const PER_MESSAGE_OVERHEAD = 4;
const cache = new WeakMap<ChatMessage, number>();

export function messageTokens(m: ChatMessage): number {
  let n = cache.get(m);
  if (n === undefined) cache.set(m, (n = Math.ceil(messageText(m).length / 4) + PER_MESSAGE_OVERHEAD));
  return n;
}

export function tokensOf(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) total += messageTokens(m);
  return total;
}
