// Undo points: what the store's shadow repository records before a delegation or a turn, and what undo answers.

/** `undo` = the state just before an undo restored files: undoing it redoes what was undone. */
export type UndoKind = 'turn' | 'delegation' | 'undo';

export interface UndoPointInput {
  workspace: string;
  kind: UndoKind;
  /** The agent that runs after the snapshot (director for a turn). */
  agent: string;
  taskId: string;
  /** The delegate_* call id (delegations); the Director's undo tool finds a point by it. */
  callId?: string;
  /** One line for the list: the delegation's task or the turn's prompt. */
  label?: string;
}

export interface UndoEntry {
  id: string;
  kind: UndoKind;
  agent: string;
  taskId: string;
  callId?: string;
  label?: string;
  /** Epoch ms of the snapshot before. */
  time: number;
  workspace: string;
  /** The tree before (shadow repository object id). */
  before: string;
  /** The tree when the delegation or turn ended; absent while it runs or when the process died under it. */
  after?: string;
  endedAt?: number;
  /** Set once undone: the id of the `undo` point taken just before the restore. */
  undoneBy?: string;
}

export interface UndoListItem extends UndoEntry {
  /** Paths the delegation or turn changed (before → after, or before → now while no end was recorded). */
  files: string[];
}

export interface UndoRestoreOptions {
  /** Show the diff only; nothing is written in the workspace. */
  dryRun?: boolean;
}

export type UndoRestoreResult =
  | { ok: true; id: string; dryRun: boolean; restored: string[]; removed: string[]; diff: string; undoId?: string }
  /** `changed_since`: files changed after the point's delegation or turn ended (by the user or a later run); nothing written. */
  | { ok: false; id: string; reason: 'changed_since' | 'not_found' | 'nothing'; files: string[]; message: string };

/** `[undo]` as the store takes it: keepDays 0 = keep every point; maxBytes 0 = no size cap. */
export interface UndoOptions {
  enabled: boolean;
  keepDays: number;
  maxBytes: number;
}
