// Conversation shapes shared by engines, the run loop, memory and the rollout ledger.
import { z } from 'zod';

export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Raw JSON text exactly as the model produced it (may be invalid JSON). */
  arguments: z.string(),
  /** The answer stopped at its output limit inside these arguments (finish reason "length"): never run; the wire
   *  sends a valid stand-in for them and the call's result tells the model it was cut. */
  truncated: z.literal(true).optional(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** Provider-native reasoning kept so it can be sent back (Anthropic thinking blocks need the signature). */
export const ReasoningSchema = z.object({
  text: z.string(),
  signature: z.string().optional(),
  redacted: z.string().optional(),
});
export type Reasoning = z.infer<typeof ReasoningSchema>;

export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string(), name: z.string().optional() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(ToolCallSchema).optional(),
    reasoning: z.array(ReasoningSchema).optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), content: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** Provider-facing tool definition: JSON Schema parameters rendered from zod. */
export const ToolDefSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolDef = z.infer<typeof ToolDefSchema>;

export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedInputTokens: z.number().int().nonnegative().default(0),
  reasoningTokens: z.number().int().nonnegative().default(0),
});
export type Usage = z.infer<typeof UsageSchema>;

/** Usage of one agent on one provider/model: a run reports its own entries plus every descendant's. */
export const UsageEntrySchema = z.object({
  agent: z.string(),
  provider: z.string(),
  model: z.string(),
  calls: z.number().int().nonnegative(),
  usage: UsageSchema,
});
export type UsageEntry = z.infer<typeof UsageEntrySchema>;

export const FinishReasonSchema = z.enum(['stop', 'tool_calls', 'length', 'content_filter', 'error', 'unknown']);
export type FinishReason = z.infer<typeof FinishReasonSchema>;
