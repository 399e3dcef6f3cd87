// The one zero-usage outcome: a turn that never ran, or failed before it had a result (no text, no tokens, no notes).
import type { SerializedError, StopReason, Usage } from '../../src/runtime/protocol/index.js';
import type { TaskOutcome } from './types.js';

export const NO_USAGE: Readonly<Usage> = Object.freeze({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 });

export function emptyOutcome(taskId: string, stopReason: StopReason = 'unaccounted', error?: SerializedError): TaskOutcome {
  return { taskId, text: '', stopReason, usage: { ...NO_USAGE }, notes: [], rolloutPath: null, ...(error !== undefined ? { error } : {}) };
}
