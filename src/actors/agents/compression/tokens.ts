// "Tokens of these messages" for compression, in one function the tokenizer work can swap at merge.
import { countMessagesTokens } from '../../llm/tokens.js';
import type { ChatMessage } from '../port-types.js';

/** Exact (cl100k) once the tokenizer is loaded in this thread, a chars/4 estimate until then; cached per message. */
export function tokensOf(messages: readonly ChatMessage[]): number {
  return countMessagesTokens(messages);
}
