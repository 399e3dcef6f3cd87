// The engine contract the run loop calls; implemented by the OpenAI and Anthropic engines and the
// routing/reliability wrappers around them. Every wrapper keeps this exact shape.
import type { ChatMessage, FinishReason, Reasoning, ToolCall, ToolDef, Usage } from '../../runtime/protocol/index.js';
import type { Tier } from '../../runtime/config/index.js';

export interface LlmRequest {
  messages: readonly ChatMessage[];
  /** Sent to the provider sorted by name (prompt-cache stability); the engine sorts, callers need not. */
  tools: readonly ToolDef[];
  /** Call options win over provider config; undefined = fall back to the provider, then omit. */
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  signal: AbortSignal;
  /** Agent identity: routing baselines, fake-provider scripts and events are keyed by it. */
  agent: string;
  onTextDelta?: ((text: string) => void) | undefined;
  onReasoningDelta?: ((text: string) => void) | undefined;
  /** Set by the routing engine when a tier chose the provider (events carry it). */
  tier?: Tier | undefined;
  /** Called once per successful provider call (classifier and fallback calls included): the run's usage ledger. */
  onUsage?: ((u: CallUsage) => void) | undefined;
  /** Called whenever bytes of the answer arrive (its head, each chunk): the reliability layer's silence watch. */
  onWire?: (() => void) | undefined;
  /** Where this call sits in the loop's tries of one step, so events number the attempts across them as one
   *  sequence: `before` attempts of this step were made already, `roundsLeft` tries of the step remain, this one included. */
  attempt?: { step: number; before: number; roundsLeft: number } | undefined;
}

export interface CallUsage {
  provider: string;
  model: string;
  usage: Usage;
}

export interface LlmResponse {
  text: string;
  toolCalls: ToolCall[];
  reasoning: Reasoning[];
  usage: Usage;
  finishReason: FinishReason;
  provider: string;
  model: string;
}

export interface LlmEngine {
  call(req: LlmRequest): Promise<LlmResponse>;
  /** The provider/model the next call would use (for events and the TUI). */
  describe(): { provider: string; model: string };
  /** The context window of the provider the next call goes to, and where it came from (the routing engine). */
  window?(): Promise<{ tokens?: number; source: string }>;
  /** A server's overflow answer named its window (the routing engine keeps it and says it in model_info). */
  learnWindow?(tokens: number): void;
  /** A model switch from the next call on (the routing wrapper has it; a bare engine cannot switch). */
  setOverride?(provider: string | null, model?: string): void;
}
