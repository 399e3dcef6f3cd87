// Re-exports of the protocol and store shapes (what crosses threads) the agents use: one import site.
export type { ChatMessage, Event, Handoff, HandoffStatus, StopReason, ToolCall, ToolDef, Usage, FinishReason } from '../../runtime/protocol/index.js';
export type { RolloutRecord as RolloutRecordLike, WorkspaceFacts } from '../../store/api.js';
