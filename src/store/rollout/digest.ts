// The one fingerprint rule: sha256 over the rebuilt message list, reasoning included (memory rules 1, 20).
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import type { ChatMessage } from '../../runtime/protocol/index.js';

/** Canonical field order per role, so key order in stored JSON cannot change the digest. */
function canonical(m: ChatMessage): unknown[] {
  switch (m.role) {
    case 'system':
      return ['system', m.content];
    case 'user':
      return ['user', m.content, m.name ?? null];
    case 'assistant':
      return [
        'assistant',
        m.content,
        (m.toolCalls ?? []).map((c) => [c.id, c.name, c.arguments]),
        (m.reasoning ?? []).map((r) => [r.text, r.signature ?? null, r.redacted ?? null]),
      ];
    case 'tool':
      return ['tool', m.toolCallId, m.name, m.content];
  }
}

export function digestMessages(messages: readonly ChatMessage[]): string {
  const h = nodeCrypto().createHash('sha256');
  for (const m of messages) {
    h.update(JSON.stringify(canonical(m)));
    h.update('\n');
  }
  return h.digest('hex');
}
