// The Host contract every client speaks: an in-process runtime (headless, batch, serve) implements it.
import type { ProviderChoice } from './model-choices.js';
import type { UndoListItem, UndoRestoreResult } from '../../src/store/api.js';
import type { Envelope, EventOf, SerializedError, StopReason, Usage, UsageEntry } from '../../src/runtime/protocol/index.js';

export interface TaskOptions {
  /** -y: every authorization bypassed. */
  yolo: boolean;
  /** -Y: implies -y, removes ask_user_for_help and adds the autonomous-decision instruction. */
  fullYolo: boolean;
  /** -d: sub-agents the Director may not delegate to ('all' = every one). */
  disabledAgents: string[];
  /** TUI `/model`: a configured provider every agent of the turn uses (wins over routing). */
  provider?: string | undefined;
  /** `--model`: this model on the turn's provider (`provider`, else the default one), for this turn only. */
  model?: string | undefined;
}

export interface TaskSpec {
  prompt: string;
  workspace: string;
  options: TaskOptions;
  /** Caller-chosen id (batch uses it for resume); generated when absent. */
  taskId?: string | undefined;
  /** --resume / --continue / --fork: the session this turn continues (absent = a new session). */
  session?: { resume?: string; continueLatest?: boolean; fork?: boolean } | undefined;
}

export interface TaskOutcome {
  taskId: string;
  text: string;
  stopReason: StopReason;
  /** Every agent's tokens (the Director's and each delegation's, nested ones included). */
  usage: Usage;
  /** The same by agent × provider × model, each with its estimated cost (null = no price for the model). */
  usageByAgent?: AgentUsage[] | undefined;
  /** Estimated USD over the priced entries; models without a price are listed in unpricedModels. */
  costUsd?: number | undefined;
  unpricedModels?: string[] | undefined;
  /** Refs of the notes written during the task. */
  notes: string[];
  /** The board could not be listed: `notes` is unknown (never reported as "0 notes"). */
  notesError?: string | undefined;
  rolloutPath: string | null;
  /** The session this turn belongs to (what `--resume` takes); absent when the turn never started. */
  sessionId?: string | undefined;
  error?: SerializedError | undefined;
}

export type AgentUsage = UsageEntry & { costUsd: number | null };

export type TaskState = 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';

export interface TaskStatus {
  taskId: string;
  state: TaskState;
  prompt: string;
  workspace: string;
  startedAt: number;
  endedAt: number | null;
  outcome: TaskOutcome | null;
}

export interface TreeNode {
  name: string;
  kind: string;
  state: string;
  ageMs: number;
  restarts: number;
  mailboxDepth: number;
  drops: number;
  /** Paused on its own (Ctrl-T `p`, `attach pause TASK ACTOR`); the whole task's pause is the task's state. */
  paused?: boolean;
  /** A parallel writer's own git worktree (its branch) while it runs (issue 26). */
  worktree?: string;
  children: TreeNode[];
}

export type UserHelpResponse = Omit<EventOf<'user_help_response'>, 'type'>;

/** A subscription filter; `since` replays the task's retained envelopes with a larger seq first. */
export interface EventFilter {
  taskId?: string | undefined;
}

/** What both the Host (clients' view) and the RuntimeAdapter under it offer. */
export interface SupervisorOps {
  /** Delivers every envelope matching the filter, in dispatcher order; returns the unsubscribe. */
  subscribe(filter: EventFilter, onEnvelope: (env: Envelope) => void): () => void;
  pause(taskId: string): boolean;
  resume(taskId: string): boolean;
  /** Pauses (or resumes) one actor of a live task — an agent name, a delegation call id or a full actor name;
   *  returns the actor names reached (empty = none). The task's state does not change. */
  pauseActor(taskId: string, actor: string, paused: boolean): string[];
  respond(taskId: string, response: UserHelpResponse): boolean;
  tree(): TreeNode;
  /** Per-task timeline (notes, mentions, delegations, status changes), newest first. */
  timeline(taskId: string, limit: number): Promise<unknown[]>;
  /** One page of it: `offset` entries skipped (newest first), the total, and whether older ones remain. */
  timelinePage(taskId: string, limit: number, offset: number): Promise<{ entries: unknown[]; total: number; hasMore: boolean }>;
  /** Conversation memory of a task (from the store), or null when unknown. */
  memory(taskId: string): Promise<unknown>;
  /** Forgets a task's saved memory; true when there was some. */
  deleteMemory(taskId: string): Promise<boolean>;
  /** The undo points of a workspace, newest first (the store's shadow repository). */
  undoList(workspace: string): Promise<UndoListItem[]>;
  /** Restores undo point `id` of a workspace (or shows its diff: dryRun). */
  undoRestore(workspace: string, id: string, dryRun: boolean): Promise<UndoRestoreResult>;
  /** The configured provider names (what a start's `options.provider` may name). */
  providers(): string[];
  /** `/model`'s picker: the config's providers now (re-read), each usable or refused with the reason, with the
   *  models its server lists. */
  models(): Promise<ProviderChoice[]>;
  /** A message typed while the task runs: its Director takes it at its next step boundary; false = not running. */
  queueMessage(taskId: string, text: string): Promise<boolean>;
  /** The messages its Director did not take before the turn ended (the client sends them as the next turn). */
  takeQueued(taskId: string): Promise<string[]>;
  /** Switches a running task's model at its Director's next step (null provider = routing); the reason if refused. */
  switchModel(taskId: string, provider: string | null, model?: string): Promise<string | null>;
  /** Resolves to the names still running after timeoutMs (empty = all done). */
  drain(timeoutMs: number): Promise<string[]>;
  /** `{root}/run/{name}` written by the store actor (single writer): atomic, 0600 in a 0700 dir; returns the path. */
  writeRunFile(name: string, content: string): Promise<string>;
  /** Removes a run file; a missing one is not an error. */
  removeRunFile(name: string): Promise<void>;
  /** Rejects with a CliError (exit 1) once everything is down if a durability write failed (final flush, a stop hook). */
  shutdown(): Promise<void>;
}

/** Where a follow-up went: into the running turn (`taskId`; its Director reads it at its next step), a new turn of
 *  the task's session now (idle task), or queued behind the running turn. */
export type SendResult = { delivered: 'next_step'; taskId: string } | { delivered: 'next_turn'; taskId: string } | { delivered: 'queued'; taskId: string; position: number };

export interface Host extends SupervisorOps {
  startTask(spec: TaskSpec): { taskId: string; done: Promise<TaskOutcome> };
  /** A follow-up message to a task: its running turn takes it at the next step, else it starts the next turn of its
   *  session (null = unknown task). */
  send(taskId: string, message: string, model?: Partial<Pick<TaskOptions, 'provider' | 'model'>>): Promise<SendResult | null>;
  cancel(taskId: string): boolean;
  status(taskId: string): TaskStatus | null;
  tasks(): TaskStatus[];
}
