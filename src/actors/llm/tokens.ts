// Token counting with js-tiktoken cl100k_base: encoder loaded lazily, counts cached per message object.
import type { ChatMessage } from '../../runtime/protocol/index.js';

interface Encoder {
  encode(text: string): number[];
}

let encoder: Encoder | null = null;
let loading: Promise<Encoder> | null = null;

/** Loads the encoder once (off the hot path: call this at actor start, not inside a step). */
export async function loadTokenizer(): Promise<void> {
  loading ??= import('js-tiktoken').then((m) => (encoder = m.getEncoding('cl100k_base')));
  await loading;
}

/** Exact count when the encoder is loaded; a chars/4 estimate until then (never blocks). */
export function countTextTokens(text: string): number {
  if (encoder !== null) return encoder.encode(text).length;
  return Math.ceil(text.length / 4);
}

const PER_MESSAGE_OVERHEAD = 4;
const cache = new WeakMap<ChatMessage, { exact: boolean; n: number }>();

function messageText(m: ChatMessage): string {
  switch (m.role) {
    case 'system':
    case 'user':
      return m.content;
    case 'tool':
      return `${m.name}\n${m.content}`;
    case 'assistant':
      return [m.content, ...(m.toolCalls ?? []).map((t) => `${t.name}${t.arguments}`), ...(m.reasoning ?? []).map((r) => r.text)].join('\n');
  }
}

/** Incremental: each message is encoded once (messages are immutable once in history). */
export function countMessageTokens(m: ChatMessage): number {
  const hit = cache.get(m);
  if (hit !== undefined && (hit.exact || encoder === null)) return hit.n;
  const n = countTextTokens(messageText(m)) + PER_MESSAGE_OVERHEAD;
  cache.set(m, { exact: encoder !== null, n });
  return n;
}

export function countMessagesTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) total += countMessageTokens(m);
  return total;
}
