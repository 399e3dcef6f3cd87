// The store actor's public surface: every write under the data root goes through these calls.
// Actors reach it by RPC; this file holds types only so actors may import it (guard: import-direction).
import type { ChatMessage, Handoff, StopReason, UsageEntry } from '../runtime/protocol/index.js';
import type { RolloutHead, SessionEntry, SessionSummary } from './types-session.js';

export type { RolloutHead, SessionEntry, SessionSummary } from './types-session.js';
import type { UndoEntry, UndoListItem, UndoPointInput, UndoRestoreOptions, UndoRestoreResult } from './types-undo.js';
export type { UndoEntry, UndoKind, UndoListItem, UndoOptions, UndoPointInput, UndoRestoreOptions, UndoRestoreResult } from './types-undo.js';

export type RolloutRecord =
  | { type: 'session_meta'; ts: number; payload: SessionMeta }
  | { type: 'turn_context'; ts: number; payload: { model: string; provider: string; cwd: string; step?: number } }
  | { type: 'response_item'; ts: number; payload: ChatMessage }
  | { type: 'event_msg'; ts: number; payload: { kind: string; stopReason?: StopReason; detail?: string; usage?: UsageEntry } }
  | { type: 'compacted'; ts: number; payload: { replacesCount: number; messages: ChatMessage[] } }
  | { type: 'agent_checkpoint'; ts: number; payload: AgentCheckpoint };

/** What a client leaves for a running task: a message typed while it works, or a model to switch to. */
export type TaskInboxItem = { kind: 'message'; text: string } | { kind: 'model'; provider: string | null; model?: string };

export type RolloutRecordType = RolloutRecord['type'];

export interface SessionMeta {
  sessionId: string;
  taskId: string;
  agent: string;
  projectId: string;
  cwd: string;
  /** Filled by the store from `cwd` (null: not a repository, or git failed or timed out); callers never set it. */
  git?: { commit?: string; branch?: string; remote?: string; dirty?: boolean } | null | undefined;
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
  /** Number of messages the fingerprint covers (the rebuilt list). */
  messageCount?: number;
  /** The workspace the run last saw (`[resume] checkpoint_workspace`): a resume onto a changed one degrades to C. */
  workspace?: WorkspaceFacts;
}

/** Git HEAD and branch (null: no repository, no commit yet, detached) and a sha256 per file the run touched. */
export interface WorkspaceFacts {
  head: string | null;
  branch: string | null;
  files: { path: string; sha256: string }[];
}

/** What the caller supplies for a checkpoint; the fingerprint is computed by the store's reader side only. */
export type CheckpointInput = Omit<AgentCheckpoint, 'fingerprint' | 'messageCount'>;

export interface RolloutHandle {
  path: string;
  sessionId: string;
}

/** What a caller opens a rollout with: the store adds the git identity (one carrier, tests and production). */
export type SessionStart = Omit<SessionMeta, 'git'>;

export interface OpenRolloutOptions {
  /** Child (delegation) rollouts carry an `_{agent}` file-name suffix. */
  agentSuffix?: boolean;
}

/** Facts about a damaged or oversized file, reported rather than thrown. */
export interface ReadIssues {
  /** The last line did not parse (a crash mid-write): skipped. */
  tornTail: boolean;
  /** Lines before the tail that did not parse: skipped and counted. */
  corruptLines: number;
}

/** The `event_msg` kind of one answered provider call of the rollout's agent (`usage`): what a run spent, even one that
 *  never returned its result (killed past its grace). */
export const LLM_USAGE_KIND = 'llm_usage';

/** The `event_msg` kind of a plan in context compression's thinklink store (`detail` = "step N\n<plan>"). */
export const THINKLINK_KIND = 'thinklink_entry';

export type ReplayResult =
  | {
      ok: true;
      meta: SessionMeta | null;
      messages: ChatMessage[];
      /** sha256 over the rebuilt list, reasoning included (the one digest rule). */
      fingerprint: string;
      lastCheckpoint: AgentCheckpoint | null;
      /** The details of the rollout's `event_msg thinklink_entry` records, in order (the run's plans: resume
       *  restores context compression's thinklink store from them, as the compressed list no longer holds them). */
      thinklink: string[];
      records: number;
      issues: ReadIssues;
    }
  | { ok: false; reason: 'not_found' | 'too_large'; bytes: number; limit: number };

/** Stop facts read from the tail; `found=false` is shown as "unknown", never filtered out. */
export type StopFacts =
  | { found: true; stopReason: StopReason; ts: number; step: number | null; source: 'event_msg' | 'agent_checkpoint' }
  | { found: false };

export interface RolloutSummary {
  path: string;
  meta: SessionMeta | null;
  /** Without system messages and reasoning, tool outputs cut: for pickers, never for replay. */
  messages: ChatMessage[];
  stop: StopFacts;
  issues: ReadIssues;
}

export interface NoteInput {
  boardId: string;
  agent: string;
  handoff: Handoff;
  /** The full deliverable; the note body. */
  body: string;
  /** Artifact ids the system saw produced: they win over the model's `handoff.artifacts`. */
  systemArtifacts?: string[];
  /** Explicit mentions; unioned with the ones the store extracts from the body. */
  mentions?: string[];
  /** Ref of the note that asked for this one (collaboration `triggered_by`). */
  triggeredBy?: string;
}

/** A note without its body (seed rule 12): cheap enough to list every turn. */
export interface NoteMeta {
  ref: string;
  boardId: string;
  agent: string;
  createdAt: string;
  handoff: Handoff;
  bodySize: number;
}

export interface BoardIndex {
  /** The text to inject (starts with INDEX_HEADER_PREFIX), or '' when disabled or empty. */
  text: string;
  listed: number;
  total: number;
  /** Notes among the newest N that could not be decoded: visible, never silent. */
  skipped: number;
  /** The board's directories as this index listed them (inode 0: the board had none), absent when the listing was
   *  too recent to trust: while each still has this inode and mtime the index is the same (client-index.ts). */
  dirs?: readonly BoardDirSignature[];
}

/** One directory of a board listing: decimal inode and mtime in ns (strings: they cross every transport). */
export interface BoardDirSignature {
  path: string;
  ino: string;
  mtimeNs: string;
}

export interface IndexOptions {
  /** 0 = index off. */
  maxNotes: number;
  /** Negative = no trimming (the config's explicit 0, converted by indexOptionsFromConfig). */
  maxLineChars: number;
}

export interface ContextPack {
  notes: { ref: string; agent: string; text: string; truncated: boolean }[];
  unresolved: string[];
}

export interface GcOptions {
  /** Notes older than this are removed; 0 = never by age. */
  ttlMs: number;
  /** Per-board count cap, newest kept by file name; 0 = no cap. */
  maxNotesPerBoard: number;
}

export interface GcReport {
  removedNotes: number;
  removedBoards: number;
  skippedSymlinks: number;
}

export type TimelineEntry =
  | { ts: string; type: 'note'; agent: string; ref: string; status: string; conclusion: string; triggeredBy?: string }
  | { ts: string; type: 'mention'; agent: string; ref: string; by: string }
  | { ts: string; type: 'delegation'; agent: string; callId: string; phase: 'start' | 'end'; status?: string }
  | { ts: string; type: 'status'; from: string; to: string }
  | { ts: string; type: 'review'; agent: string; ref: string; verdict: string };

export interface TimelinePage {
  taskId: string;
  entries: TimelineEntry[];
  total: number;
  hasMore: boolean;
}

export interface ArtifactPage {
  text: string;
  total: number;
  nextOffset: number | null;
}

/** Conversation memory wire shape (memory rule 3). */
export interface MemoryJson {
  messages: ChatMessage[];
  max_size: number;
}

export interface FlushReport {
  written: string[];
  failed: { taskId: string; error: string }[];
}

export interface Settings {
  authorized_projects: string[];
  /** Project-level authorization grants: real project path → grant keys (`<tool>:<real path>`, `<tool>:dangerous`). */
  project_grants?: Record<string, string[]>;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One line of a log file (`logs/{kind}-{day}.jsonl`); the store redacts it before writing. */
export interface LogLine {
  kind: 'app' | 'llm' | 'llm-error' | 'tool' | 'delegate';
  level: LogLevel;
  /** What happened, e.g. `log`, `llm_call_end`, `tool_call_result`, `delegation_end`. */
  event: string;
  msg: string;
  /** Epoch ms (default: the store's clock); written as ISO time. */
  ts?: number;
  taskId?: string;
  agent?: string;
  data?: Record<string, unknown>;
}

/** The blueprint's persisted prose (`data/blueprint/{projectId}/blueprint.md`). */
export interface BlueprintDoc {
  revision: number;
  /** The structural fingerprint of the code when the prose was written. */
  fingerprint: string;
  /** The structure changed since: the prose is kept, marked stale, until a Repo run writes it again (sticky). */
  stale: boolean;
  updated: string;
  prose: string;
}

export interface BlueprintWrite {
  projectId: string;
  /** The workspace the prose is about: `$HOME`, `/`, and a directory with neither .git nor a manifest are refused. */
  workspace: string;
  /** Compare-and-swap: the revision the writer read (0 = none). */
  expectedRevision: number;
  fingerprint: string;
  prose: string;
  stale?: boolean;
  /** The home directory to refuse (tests); default the process's. */
  home?: string;
}

export type BlueprintWriteResult = { ok: true; revision: number; doc: BlueprintDoc } | { ok: false; reason: 'conflict' | 'refused'; detail: string; revision: number };

export interface StoreApi {
  /** Returns once the file is open; session_meta (with git, read off this call's path) is still its first record. */
  openRollout(meta: SessionStart, opts?: OpenRolloutOptions): Promise<RolloutHandle>;
  /** Returns at once; durability only after drain(). */
  appendRollout(path: string, records: RolloutRecord[]): Promise<void>;
  drain(path?: string): Promise<void>;
  /** Drains, rebuilds the list from the whole file, fingerprints it, appends the checkpoint durably. */
  writeCheckpoint(path: string, input: CheckpointInput): Promise<AgentCheckpoint>;
  /** Exact rebuild for resume (drains `path` first when it is open here). */
  readReplay(path: string): Promise<ReplayResult>;
  readStopFacts(path: string): Promise<StopFacts>;
  /** The tokens a rollout's agent recorded (its `llm_usage` records, summed by provider × model; drains `path` first). */
  readUsage(path: string): Promise<UsageEntry[]>;
  readSummary(path: string): Promise<RolloutSummary>;
  listRollouts(projectId: string): Promise<string[]>;
  /** The rollouts (Director and delegations) whose session_meta names `taskId`, in time order. */
  taskRollouts(projectId: string, taskId: string): Promise<RolloutHead[]>;
  /** Appends one turn start/end to the session's ledger (`data/sessions/{projectId}/{sessionId}.jsonl`). */
  recordSessionTurn(projectId: string, sessionId: string, entry: SessionEntry): Promise<void>;
  readSession(projectId: string, sessionId: string): Promise<SessionSummary | null>;
  /** This project's sessions, newest activity first. */
  listSessions(projectId: string): Promise<SessionSummary[]>;
  writeNote(note: NoteInput): Promise<NoteMeta>;
  listNotes(boardId: string, opts?: { agent?: string; limit?: number }): Promise<NoteMeta[]>;
  readNote(boardId: string, ref: string): Promise<{ meta: NoteMeta; body: string } | null>;
  buildIndex(boardId: string, opts?: IndexOptions): Promise<BoardIndex>;
  resolveRefs(boardId: string, refs: string[], opts?: { max?: number; budgetChars?: number }): Promise<ContextPack>;
  gcNotes(opts: GcOptions): Promise<GcReport>;
  registerAgent(id: string, aliases?: string[]): Promise<void>;
  recordTimeline(taskId: string, entry: TimelineEntry): Promise<void>;
  /** Leaves a message or a model switch for a running task's Director (taken at its next step); returns the queue's length. */
  postToTask(taskId: string, item: TaskInboxItem): Promise<number>;
  /** Takes the task's inbox (only items of `kind` when given): the Director at a step, a client once the turn ended. */
  takeTaskInbox(taskId: string, kind?: TaskInboxItem['kind']): Promise<TaskInboxItem[]>;
  timeline(taskId: string, opts?: { limit?: number; offset?: number }): Promise<TimelinePage>;
  writeArtifact(content: string): Promise<string>;
  /** A PNG image (browser screenshots) stored as an artifact; other bytes are refused (BAD_INPUT). */
  writeImageArtifact(png: Uint8Array): Promise<string>;
  readArtifact(id: string, offset?: number, limit?: number): Promise<ArtifactPage>;
  saveTaskMemory(taskId: string, memory: MemoryJson): Promise<void>;
  loadTaskMemory(taskId: string): Promise<MemoryJson | null>;
  flushTaskMemory(): Promise<FlushReport>;
  /** Drops the pending snapshot and the file; true when there was something to delete. */
  deleteTaskMemory(taskId: string): Promise<boolean>;
  readSettings(): Promise<Settings>;
  /** Lists the project in `authorized_projects`; `grantKeys` are added to its `project_grants` (tools' ProjectGrants). */
  authorizeProject(projectPath: string, grantKeys?: string[]): Promise<Settings>;
  /** Writes `{root}/run/{name}` atomically, 0600 in a 0700 dir (the supervisor's discovery file); returns the path.
   *  `name` is one plain file name (no separators, no leading dot), content at most 64 KiB. */
  writeRunFile(name: string, content: string): Promise<string>;
  /** Removes `{root}/run/{name}`; a missing file is not an error. */
  removeRunFile(name: string): Promise<void>;
  /** Appends log lines (grouped into one write per file), each through the store's redactor; resolves once written. */
  appendLogs(lines: LogLine[]): Promise<void>;
  /** Snapshots the workspace into its shadow repository (`undo/<workspace>/`) before a write delegation or a turn;
   *  null when `[undo] enable = false`. Resolves once the tree and its entry are durable. */
  undoPoint(input: UndoPointInput): Promise<UndoEntry | null>;
  /** The delegation or turn of point `id` ended: its end state is snapshotted (files changed later are seen as later). */
  undoEnd(workspace: string, id: string): Promise<void>;
  /** The workspace's undo points, newest first, each with the files its run changed. */
  undoList(workspace: string): Promise<UndoListItem[]>;
  /** Restores the files point `id` (or the newest point of delegate call `id`) changed to their state before it; stops
   *  and names files changed after it ended; the state before the restore becomes an `undo` point. */
  undoRestore(workspace: string, id: string, opts?: UndoRestoreOptions): Promise<UndoRestoreResult>;
  /** The code search index cache of one workspace (`data/codeseek/{key}.json`; key: hex of the workspace's hash). */
  readCodeIndex(key: string): Promise<string | null>;
  writeCodeIndex(key: string, data: string): Promise<void>;
  readBlueprint(projectId: string): Promise<BlueprintDoc | null>;
  /** Atomic, compare-and-swap on the revision, across processes (a lock file); the prose passes the redactor. */
  writeBlueprint(w: BlueprintWrite): Promise<BlueprintWriteResult>;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}
