// The tool contract: one declaration per tool, with capability tags from which concurrency,
// authorization, truncation and display are derived (never from lists of names).
import type { z } from 'zod';
import type { Handoff } from '../../runtime/protocol/index.js';
import type { Boundary } from './boundary.js';
import type { ShellSandbox } from './sandbox-run.js';
import type { GuardReason } from './workspace-guard.js';
import type { CodeQuery } from '../codeseek/client.js';

/** `memory` = the blackboard and artifacts reached through the store actor (not the file system). */
export type Effect = 'read' | 'fs_write' | 'shell' | 'delegate' | 'interact' | 'control' | 'network' | 'memory';

/** Agent kinds a delegation tool can target. */
export type DelegateTarget = 'repo' | 'coding' | 'chat' | 'devops' | 'browser' | 'meta';

export interface CapabilityTags {
  effect: Effect;
  /** Changes state outside the conversation (files, processes). */
  mutates: boolean;
  /** Must never run beside another call in the same batch. */
  serial: boolean;
  /** A write delegation whose writer gets its own git worktree (issue 26): the one kind of mutating call that may run
   *  beside others, and only in a batch the runner marks `isolatedWriters` (a git workspace, a delegation pool > 1);
   *  elsewhere it runs alone like any mutating call. The registry allows `mutates` without `serial` for it only. */
  isolatedWriter?: boolean;
  /** A writer or the shell: the registry requires it for fs_write/shell (every tool's pathParams are guarded anyway). */
  needsAuth: boolean;
  /** Argument names that hold filesystem paths, checked against the boundary for every tool, reads included. */
  pathParams: readonly string[];
  /** Argument names that hold a URL: a `file:` URL is checked by the guard as a read of its path (like pathParams). */
  urlParams?: readonly string[];
  /** Argument names that hold a shell command (absolute path tokens are checked by the guard). */
  commandParams?: readonly string[];
  /** Boolean argument through which the model itself flags the call as dangerous. */
  dangerFlag?: string;
  /** How the result is cut when too long. */
  truncation: 'head' | 'tail' | 'head_tail' | 'none';
  /** How the UI shows the call. */
  display: 'path' | 'command' | 'query' | 'text' | 'hidden';
  /** One-line summary of a call for activity lines, built from its arguments. */
  brief: (args: Record<string, unknown>) => string;
  /** Cold tools are listed in a catalogue; their schema is fetched through load_tool on first use. */
  cold?: boolean;
  /** Only for tools that are not capability-matched (delegations, agent_exit): the agents that get it. */
  audience?: readonly string[];
  /** Delegation tools only: the agent the call runs (`-d <agent>` removes the tool by this tag). */
  target?: DelegateTarget;
  /** Every call needs approval under this grant key (external write tools); `projectGrant: false` = a
   *  project-level grant does not cover it (destructive tools ask again each session unless -y). */
  approval?: { key: string; text: string; projectGrant: boolean };
}

/** Arguments of every delegate_* tool. */
export interface DelegateArgs {
  task: string;
  context_refs: string[];
}

/** What the tool can reach while executing; built per call by the adapter. */
export interface ToolContext {
  workspace: string;
  signal: AbortSignal;
  agent: string;
  taskId: string;
  delegationId: string | null;
  boardId: string;
  /** The provider's id of this call (delegations are named `delegation:<callId>:<agent>`). */
  callId: string;
  /** Ask the user a question (ask_user_for_help); rejects when nobody can answer. */
  askUser(question: string): Promise<string>;
  /** Store access for notes/artifacts tools (RPC to the store actor in production). */
  store: ToolStoreAccess;
  /** Runs a delegation to a sub-agent (implemented by the agents layer); errors the model can act on are results.
   *  `call` carries this tool call's id (delegation naming) and signal (cancellation of the child). */
  delegate(agent: DelegateTarget, args: DelegateArgs, call?: { callId: string; signal: AbortSignal }): Promise<ToolOutcome>;
  /** Marks a cold tool loaded and returns its schema text; null when not in the catalogue (load_tool). */
  loadTool(name: string): string | null;
  /** The zones walkers (grep, glob) never enter; the guard's own boundary (absent: from process.env, nothing allowed). */
  boundary?: Boundary;
  /** run_bash's child environment, built by `buildShellEnv` (absent: process.env minus secret-looking names). */
  shellEnv?: NodeJS.ProcessEnv;
  /** run_bash's OS sandbox for this run (`[security] sandbox`; absent: commands run bare, tests of the word check). */
  sandbox?: ShellSandbox;
  /** Asks for what the call needs beyond its first approval (run_bash: a re-run with a wider write set), through
   *  the same grants and authorizer as the guard's reasons; true when granted (-y grants everything). */
  authorize?(reasons: readonly GuardReason[]): Promise<boolean>;
  /** The Browser agent's browser for this run (started by its first call); absent for every other agent. */
  browser?: BrowserPort;
  /** The code index of this workspace (the codeseek actor); absent: the codeseek_* tools say code search is off. */
  code?: CodePort;
  /** The repository blueprint of this workspace (read_blueprint); absent: the tool says it is not available. */
  blueprint?: { read(): Promise<string> };
}

/** Questions to the code index, bound to the run's workspace. */
export interface CodePort {
  ask(q: CodeQuery): Promise<{ text: string }>;
}

export interface BrowserCallOptions {
  signal: AbortSignal;
  /** The whole action (navigation, its load, the input events); the page view after it has its own small budget. */
  timeoutMs: number;
}

export interface BrowserShot {
  png: Uint8Array;
  width: number;
  height: number;
}

/** One browser, one current page (actors/browser/session.ts). Actions return the page view (URL, notes, text with
 *  numbered elements); failures throw a BrowserError whose `kind` the tools return as the error kind. */
export interface BrowserPort {
  open(url: string, o: BrowserCallOptions): Promise<string>;
  snapshot(o: BrowserCallOptions): Promise<string>;
  click(ref: number, o: BrowserCallOptions): Promise<string>;
  type(ref: number, text: string, opts: { submit: boolean; clear: boolean }, o: BrowserCallOptions): Promise<string>;
  press(key: string, o: BrowserCallOptions): Promise<string>;
  back(o: BrowserCallOptions): Promise<string>;
  screenshot(fullPage: boolean, o: BrowserCallOptions): Promise<BrowserShot>;
  /** A file outside the workspace that passed the guard (the user approved it, or -y): the browser may load it. */
  approveFile(realPath: string): void;
  /** End of the run: the browser and its temp profile go. */
  close(): Promise<void>;
}

/** What the agents layer supplies once per run; the adapter adds the per-call fields. */
export type ToolEnv = Omit<ToolContext, 'signal' | 'callId' | 'loadTool' | 'authorize'>;

export interface ToolStoreAccess {
  listNotes(boardId: string, opts: { agent?: string; limit?: number }): Promise<string>;
  readNote(boardId: string, ref: string): Promise<string>;
  readArtifact(id: string, opts: { offset?: number; limit?: number }): Promise<string>;
  /** Stores a large tool result; returns the artifact id the model reads it back with (read_artifact). */
  writeArtifact(content: string): Promise<string>;
  /** Stores a PNG image (browser_screenshot); returns its artifact id. The model never gets the bytes. */
  writeImageArtifact(png: Uint8Array): Promise<string>;
  /** undo_delegation: restores point `id` (or the task's newest delegation) and says what happened (absent: no store). */
  undo?(workspace: string, taskId: string, id: string | undefined, dryRun: boolean): Promise<{ ok: boolean; text: string }>;
}

/** A failure the model can act on is a result; `fatal` ends the turn. */
export type ToolOutcome =
  | { kind: 'ok'; content: string; display?: string }
  | { kind: 'error'; error: { kind: string; message: string } }
  | { kind: 'exit'; handoff: Pick<Handoff, 'conclusion' | 'facts' | 'artifacts' | 'status'> & { deliverable?: string; blueprint?: string[] } };

export interface ToolDeclaration<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Read from the sibling `<name>.md`: the text the model reads. */
  description: string;
  schema: S;
  /** External tools (MCP) bring their JSON Schema as is; built-ins render theirs from `schema`. */
  parameters?: Readonly<Record<string, unknown>>;
  tags: CapabilityTags;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome>;
}
