// The run loop's contract: the narrow interfaces it needs (tools, rollout, events); production wiring and tests share them.
import type { ChatMessage, Event, Handoff, RolloutRecordLike, StopReason, ToolCall, ToolDef, Usage } from './wire-types.js';

export type ExitHandoff = Pick<Handoff, 'conclusion' | 'facts' | 'artifacts' | 'status'> & { deliverable?: string; blueprint?: string[] };

/** Exactly one per tool call, in call order, whatever happened to the call. */
export interface ToolCallOutcome {
  callId: string;
  name: string;
  /** The tool message content the model reads. */
  content: string;
  ok: boolean;
  exit?: ExitHandoff;
}

export interface BatchOptions {
  signal: AbortSignal;
  maxParallel: number;
  /** Awaited before each call that can change anything: its call is durable first (the write-ahead record). */
  beforeEffect?: () => Promise<void>;
  /** Each call's outcome as soon as it has one (the rollout records results before the next effect's record). */
  onOutcome?: (o: ToolCallOutcome) => void;
  /** The cap of one result, from the model's window (`Compressor.resultChars`); absent = the adapter's default. */
  maxResultChars?: number;
}

export interface ToolRunner {
  /** The current surface (can grow during a task: custom agents). */
  defs(): readonly ToolDef[];
  /** System-prompt sections this surface adds (deferred-tool catalogue, skills); none = []. */
  contextSections?(): string[];
  /** Ends what the tools of this run hold (the Browser agent's browser); called once when the run ends. */
  close?(): Promise<void>;
  /** At each step: MCP tools that changed since the run started reach the surface; the note for the next call. */
  refreshExternal?(): Promise<string | null>;
  /** One outcome per call, in order; `fatal` set when a call failed fatally (the turn ends). */
  runBatch(calls: readonly ToolCall[], opts: BatchOptions): Promise<{ outcomes: ToolCallOutcome[]; fatal: string | null }>;
  /** True when the named tool can change anything (tag `mutates`); absent = every tool may. */
  mutates?(name: string): boolean;
}

/** The rollout through the store actor: append returns at once, drain makes it durable. */
export interface Recorder {
  append(records: RolloutRecordLike[]): void;
  drain(): Promise<void>;
  /** drain(), and rejects when a record appended since the last call was lost: what is appended is durable. */
  writeAhead?(): Promise<void>;
  /** The step's request has been handed to the engine: bookkeeping that can wait (task memory) goes after its send. */
  afterSend?(): void;
}

export type Publish = (event: Event) => void;

export interface LoopResult {
  stopReason: StopReason;
  /** The deliverable: agent_exit's text, or the final plain reply (thought block removed). */
  text: string;
  exit?: ExitHandoff;
  steps: number;
  usage: Usage;
  /** Set when the loop stopped on an error (llm_error, panic, timeouts). */
  error?: string;
  thoughtFailures: number;
  messages: readonly ChatMessage[];
}
