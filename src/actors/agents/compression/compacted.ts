// The `compacted` rollout record for a rewrite: the changed prefix and its replacement; the untouched tail
// (same message objects) stays as written, so replay rebuilds exactly the compressed list.
import type { ChatMessage, RolloutRecordLike } from '../wire-types.js';

export function compactedRecord(before: readonly ChatMessage[], after: readonly ChatMessage[], ts: number): RolloutRecordLike {
  let same = 0;
  while (same < before.length && same < after.length && before[before.length - 1 - same] === after[after.length - 1 - same]) same++;
  return { type: 'compacted', ts, payload: { replacesCount: before.length - same, messages: after.slice(0, after.length - same) } };
}
