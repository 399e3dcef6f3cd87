// The in-process Host: task bookkeeping (ids, states, outcomes, cancel) over the runtime adapter.
import type { UndoListItem, UndoRestoreResult } from '../../src/store/api.js';
import { newTaskId } from './ids.js';
import { serializeError, type Envelope } from '../../src/runtime/protocol/index.js';
import { openRuntimeAdapter, type AdapterOptions, type RuntimeAdapter } from './runtime-adapter.js';
import type { EventFilter, Host, SendResult, TaskOptions, TaskOutcome, TaskSpec, TaskStatus, TreeNode, UserHelpResponse } from './types.js';
import { FollowUps } from './follow-ups.js';
import { emptyOutcome } from './empty-outcome.js';

interface Entry {
  status: TaskStatus;
  abort: AbortController;
  done: Promise<TaskOutcome>;
}

export class LocalHost implements Host {
  private readonly entries = new Map<string, Entry>();
  private readonly followUps = new FollowUps({ start: (spec) => this.startTask(spec), post: (id, text) => this.queueMessage(id, text), takeBack: (id) => this.takeQueued(id) });
  private readonly specs = new Map<string, TaskSpec>();

  private constructor(private readonly adapter: RuntimeAdapter) {}

  static async start(opts: AdapterOptions): Promise<LocalHost> {
    return new LocalHost(await openRuntimeAdapter(opts));
  }

  startTask(spec: TaskSpec): { taskId: string; done: Promise<TaskOutcome> } {
    const taskId = spec.taskId ?? newTaskId();
    if (this.entries.has(taskId)) throw new Error(`task ${taskId} already exists`);
    const abort = new AbortController();
    const status: TaskStatus = { taskId, state: 'running', prompt: spec.prompt, workspace: spec.workspace, startedAt: Date.now(), endedAt: null, outcome: null };
    // failures come back as data: a client always gets an outcome, never a rejection
    const done = this.adapter.runTask(spec, taskId, abort.signal).catch(
      (err: unknown): TaskOutcome => emptyOutcome(taskId, abort.signal.aborted ? 'cancelled' : 'panic', serializeError(err)),
    );
    const settled = done.then((outcome) => {
      status.outcome = outcome;
      status.endedAt = Date.now();
      status.state = outcome.stopReason === 'cancelled' ? 'cancelled' : outcome.error || !['plain_text', 'agent_exit'].includes(outcome.stopReason) ? 'failed' : 'completed';
      return outcome;
    });
    this.entries.set(taskId, { status, abort, done: settled });
    this.specs.set(taskId, spec);
    return { taskId, done: settled };
  }

  async send(taskId: string, message: string, model: Partial<Pick<TaskOptions, 'provider' | 'model'>> = {}): Promise<SendResult | null> {
    const e = this.entries.get(taskId);
    const base = this.specs.get(taskId);
    if (!e || !base) return null;
    // `attach send --provider/--model`: that turn (and the follow-ups after it) on the named provider and model
    const ownTurn = model.provider !== undefined || model.model !== undefined;
    const spec = ownTurn ? { ...base, options: { ...base.options, ...model } } : base;
    const turnId = this.followUps.current(taskId);
    return this.followUps.send(taskId, message, spec, { turnId: this.live(turnId) ? turnId : null, done: e.done, idle: e.status.outcome !== null, ownTurn });
  }

  providers(): string[] {
    return this.adapter.providers();
  }

  models(): ReturnType<Host['models']> {
    return this.adapter.models();
  }

  async queueMessage(taskId: string, text: string): Promise<boolean> {
    return this.live(taskId) !== undefined && this.adapter.queueMessage(taskId, text);
  }

  takeQueued(taskId: string): Promise<string[]> {
    return this.adapter.takeQueued(taskId);
  }

  async switchModel(taskId: string, provider: string | null, model?: string): Promise<string | null> {
    if (this.live(taskId) === undefined) return `task ${taskId} is not running`;
    return this.adapter.switchModel(taskId, provider, model);
  }

  subscribe(filter: EventFilter, onEnvelope: (env: Envelope) => void): () => void {
    return this.adapter.subscribe(filter, onEnvelope);
  }

  private live(taskId: string): Entry | undefined {
    const e = this.entries.get(taskId);
    return e && (e.status.state === 'running' || e.status.state === 'paused') ? e : undefined;
  }

  pause(taskId: string): boolean {
    const e = this.live(taskId);
    if (!e || !this.adapter.pause(taskId)) return false;
    e.status.state = 'paused';
    return true;
  }

  resume(taskId: string): boolean {
    const e = this.live(taskId);
    if (!e || !this.adapter.resume(taskId)) return false;
    e.status.state = 'running';
    return true;
  }

  pauseActor(taskId: string, actor: string, paused: boolean): string[] {
    return this.live(taskId) ? this.adapter.pauseActor(taskId, actor, paused) : [];
  }

  cancel(taskId: string): boolean {
    const e = this.live(taskId);
    if (!e) return false;
    if (e.status.state === 'paused') this.adapter.resume(taskId); // a paused task must reach a step boundary to stop
    e.abort.abort(new Error('cancelled by the user'));
    return true;
  }

  respond(taskId: string, response: UserHelpResponse): boolean {
    return this.live(taskId) !== undefined && this.adapter.respond(taskId, response);
  }

  status(taskId: string): TaskStatus | null {
    return this.entries.get(taskId)?.status ?? null;
  }

  tasks(): TaskStatus[] {
    return [...this.entries.values()].map((e) => e.status);
  }

  /** Test-only: the scripted model's `crash_worker` fault ends these actors' workers (see bin/AGENTS.md). */
  crashActors(name: string): number {
    return this.adapter.crashActors(name);
  }

  tree(): TreeNode {
    return this.adapter.tree();
  }

  timeline(taskId: string, limit: number): Promise<unknown[]> {
    return this.adapter.timeline(taskId, limit);
  }

  timelinePage(taskId: string, limit: number, offset: number): ReturnType<Host['timelinePage']> {
    return this.adapter.timelinePage(taskId, limit, offset);
  }

  memory(taskId: string): Promise<unknown> {
    return this.adapter.memory(taskId);
  }

  deleteMemory(taskId: string): Promise<boolean> {
    return this.adapter.deleteMemory(taskId);
  }

  undoList(workspace: string): Promise<UndoListItem[]> {
    return this.adapter.undoList(workspace);
  }

  undoRestore(workspace: string, id: string, dryRun: boolean): Promise<UndoRestoreResult> {
    return this.adapter.undoRestore(workspace, id, dryRun);
  }

  async drain(timeoutMs: number): Promise<string[]> {
    const pending = [...this.entries.values()].filter((e) => e.status.outcome === null);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all(pending.map((e) => e.done)), timeout]);
    clearTimeout(timer);
    const still = pending.filter((e) => e.status.outcome === null).map((e) => `task:${e.status.taskId}`);
    return [...still, ...(await this.adapter.drain(Math.max(0, still.length > 0 ? 0 : timeoutMs)))];
  }

  writeRunFile(name: string, content: string): Promise<string> {
    return this.adapter.writeRunFile(name, content);
  }

  removeRunFile(name: string): Promise<void> {
    return this.adapter.removeRunFile(name);
  }

  async shutdown(): Promise<void> {
    for (const e of this.entries.values()) if (e.status.outcome === null) e.abort.abort(new Error('supervisor shutting down'));
    await this.drain(5_000);
    await this.adapter.shutdown();
  }
}
