// Session ledger types: a session = one board + one conversation + one rollout family, over several turns.
import type { StopReason, Usage } from '../runtime/protocol/index.js';
import type { SessionMeta } from './api.js';

/** One line of `data/sessions/{projectId}/{sessionId}.jsonl` (append-only; a torn tail is skipped). */
export type SessionEntry =
  /** `forkedFrom` / `forkedTurn` (a fork's first turn): the parent session and its last turn when the fork was made. */
  | { kind: 'turn_start'; ts: number; taskId: string; prompt: string; workspace: string; forkedFrom?: string; forkedTurn?: string }
  | { kind: 'turn_end'; ts: number; taskId: string; stopReason: StopReason; usage: Usage; rolloutPath: string };

export interface SessionSummary {
  sessionId: string;
  projectId: string;
  workspace: string;
  startedAt: number;
  updatedAt: number;
  turns: number;
  lastPrompt: string;
  lastTaskId: string;
  /** Every turn's task id, oldest first (a resume walks back over a last turn that recorded nothing). */
  taskIds: string[];
  /** When each of those turns started (its turn_start): a fork's walk-back stops at the parent's turns before the fork. */
  turnStarts: number[];
  /** The last turn's stop reason; null = the turn never ended (the process died): "interrupted". */
  stopReason: StopReason | null;
  /** Director rollout of the last turn that ended (null when none did). */
  lastRolloutPath: string | null;
  tokens: { input: number; output: number };
  forkedFrom?: string;
  /** The parent's last turn (task id) when the fork was made: a fork's walk-back goes on from it (older records: none). */
  forkedTurn?: string;
  /** Whether a next turn may continue it; `reason` is the one line shown when it may not. */
  resumable: { ok: true } | { ok: false; reason: string };
}

/** A rollout file with its first record (who wrote it, for which task and delegation). */
export interface RolloutHead {
  path: string;
  meta: SessionMeta;
}
