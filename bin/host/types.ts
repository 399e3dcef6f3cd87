// The Host contract every client speaks: an in-process runtime (headless, batch, serve) implements it.
import type { Envelope, EventOf, SerializedError, StopReason, Usage } from '../../src/runtime/protocol/index.js';

export interface TaskOptions {
  /** -y: every authorization bypassed. */
  yolo: boolean;
  /** -Y: implies -y, removes ask_user_for_help and adds the autonomous-decision instruction. */
  fullYolo: boolean;
  /** -d: sub-agents the Director may not delegate to ('all' = every one). */
  disabledAgents: string[];
  /** TUI `/model`: a configured provider every agent of the turn uses (wins over routing). */
  provider?: string | undefined;
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
  usage: Usage;
  /** Refs of the notes written during the task. */
  notes: string[];
  rolloutPath: string | null;
  /** The session this turn belongs to (what `--resume` takes); absent when the turn never started. */
  sessionId?: string | undefined;
  error?: SerializedError | undefined;
}

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
  children: TreeNode[];
}

export type UserHelpResponse = Omit<EventOf<'user_help_response'>, 'type'>;

/** A subscription filter; `since` replays the task's retained envelopes with a larger seq first. */
export interface EventFilter {
  taskId?: string | undefined;
}

/** What both the Host (clients' view) and the RuntimePort (the runtime adapter under it) offer. */
export interface SupervisorOps {
  /** Delivers every envelope matching the filter, in dispatcher order; returns the unsubscribe. */
  subscribe(filter: EventFilter, onEnvelope: (env: Envelope) => void): () => void;
  pause(taskId: string): boolean;
  resume(taskId: string): boolean;
  respond(taskId: string, response: UserHelpResponse): boolean;
  tree(): TreeNode;
  /** Per-task timeline (notes, mentions, delegations, status changes), newest first. */
  timeline(taskId: string, limit: number): Promise<unknown[]>;
  /** Conversation memory of a task (from the store), or null when unknown. */
  memory(taskId: string): Promise<unknown>;
  /** Resolves to the names still running after timeoutMs (empty = all done). */
  drain(timeoutMs: number): Promise<string[]>;
  /** `{root}/run/{name}` written by the store actor (single writer): atomic, 0600 in a 0700 dir; returns the path. */
  writeRunFile(name: string, content: string): Promise<string>;
  /** Removes a run file; a missing one is not an error. */
  removeRunFile(name: string): Promise<void>;
  /** Rejects with a CliError (exit 1) once everything is down if a durability write failed (final flush, a stop hook). */
  shutdown(): Promise<void>;
}

export interface Host extends SupervisorOps {
  startTask(spec: TaskSpec): { taskId: string; done: Promise<TaskOutcome> };
  cancel(taskId: string): boolean;
  status(taskId: string): TaskStatus | null;
  tasks(): TaskStatus[];
}
