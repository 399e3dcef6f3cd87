// The store actor's public surface: every write under the data root goes through these calls.
// Actors reach it by RPC; this file holds types only so actors may import it (guard: import-direction).
import type { ChatMessage, Handoff, StopReason } from '../runtime/protocol/index.js';

export type RolloutRecord =
  | { type: 'session_meta'; ts: number; payload: SessionMeta }
  | { type: 'turn_context'; ts: number; payload: { model: string; provider: string; cwd: string; step?: number } }
  | { type: 'response_item'; ts: number; payload: ChatMessage }
  | { type: 'event_msg'; ts: number; payload: { kind: string; stopReason?: StopReason; detail?: string } }
  | { type: 'compacted'; ts: number; payload: { replacesCount: number; messages: ChatMessage[] } }
  | { type: 'agent_checkpoint'; ts: number; payload: AgentCheckpoint };

export interface SessionMeta {
  sessionId: string;
  taskId: string;
  agent: string;
  projectId: string;
  cwd: string;
  git?: { commit?: string; branch?: string; remote?: string } | undefined;
  delegationId: string | null;
  parentSessionId: string | null;
  boardId: string;
}

export interface AgentCheckpoint {
  step: number;
  stopReason: StopReason;
  fingerprint: string;
  model: string;
  delegationId: string | null;
}

export interface RolloutHandle {
  path: string;
  sessionId: string;
}

export interface NoteInput {
  boardId: string;
  agent: string;
  handoff: Handoff;
  /** The full deliverable; the note body. */
  body: string;
}

export interface NoteMeta {
  ref: string;
  boardId: string;
  agent: string;
  createdAt: string;
  handoff: Handoff;
}

export interface StoreApi {
  openRollout(meta: SessionMeta): Promise<RolloutHandle>;
  /** Returns at once; durability only after drain(). */
  appendRollout(path: string, records: RolloutRecord[]): Promise<void>;
  drain(path?: string): Promise<void>;
  writeNote(note: NoteInput): Promise<NoteMeta>;
  listNotes(boardId: string, opts?: { agent?: string; limit?: number }): Promise<NoteMeta[]>;
  readNote(boardId: string, ref: string): Promise<{ meta: NoteMeta; body: string } | null>;
  writeArtifact(content: string): Promise<string>;
  readArtifact(id: string, offset?: number, limit?: number): Promise<{ text: string; total: number; nextOffset: number | null }>;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}
