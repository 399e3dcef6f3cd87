// The TUI's view of a supervisor: the Host contract in-process, or the control API when attached.
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { settledStatus, type ControlClient } from '../attach/client.js';
import { newTaskId } from '../host/ids.js';
import type { ProviderChoice } from '../host/model-choices.js';
import type { Host, TaskOptions, TaskOutcome, TreeNode, UserHelpResponse } from '../host/types.js';
import type { UndoListItem, UndoRestoreResult } from '../../src/store/api.js';

export interface TuiBackend {
  /** Shown in the status line: 'local' or the supervisor's address. */
  readonly where: string;
  /** Attached: the `yagent serve` process this TUI drives (it owns the config its tasks run on). */
  readonly supervisor?: { pid: number; address: string };
  /** Starts one turn; `session` continues that session (absent = a new one). */
  start(prompt: string, session: string | undefined, provider?: string, model?: string): Promise<{ taskId: string; done: Promise<TaskOutcome | null> }>;
  /** Commands; the app runs each as a named task (never a detached promise). */
  cancel(taskId: string): Promise<void>;
  pause(taskId: string): Promise<void>;
  resume(taskId: string): Promise<void>;
  /** Pauses / continues one actor of the task (full name, agent or delegation id); resolves to the names reached. */
  pauseActor(taskId: string, actor: string, paused: boolean): Promise<string[]>;
  respond(taskId: string, response: UserHelpResponse): Promise<void>;
  /** Every envelope of the tasks this client started, in dispatcher order. */
  subscribe(onEnvelope: (env: Envelope) => void): () => void;
  tree(): Promise<TreeNode | null>;
  timeline(taskId: string): Promise<unknown[]>;
  /** The configured provider names `/model` may switch to (absent or null = unknown here: the start checks it). */
  providers?(): Promise<string[] | null>;
  /** `/model`'s picker: the providers of the config now, usable or refused with the reason, and their servers' models. */
  models?(): Promise<ProviderChoice[] | null>;
  /** A message typed while the task runs, for its Director's next step; false = the task is not running. */
  queue?(taskId: string, text: string): Promise<boolean>;
  /** What the Director did not take before its turn ended (sent as the next turn). */
  takeQueued?(taskId: string): Promise<string[]>;
  /** A running task's model switch at its next step; the reason when refused. */
  switchModel?(taskId: string, provider: string | null, model?: string): Promise<string | null>;
  /** `/undo`: the workspace's undo points (attached: of `taskId`'s workspace), or the restore of point `id`. */
  undoList?(taskId: string | null): Promise<UndoListItem[]>;
  undoRestore?(taskId: string | null, id: string): Promise<UndoRestoreResult>;
}

const done = (_ok: boolean): Promise<void> => Promise.resolve();

export function localBackend(host: Host, workspace: string, options: TaskOptions): TuiBackend {
  const mine = new Set<string>();
  return {
    where: 'local',
    start: (prompt, session, provider, model) => {
      const taskId = newTaskId();
      mine.add(taskId); // before the start: not even the first event may be missed
      const opts = provider !== undefined ? { ...options, provider, ...(model !== undefined ? { model } : {}) } : options;
      const started = host.startTask({ prompt, workspace, options: opts, taskId, ...(session ? { session: { resume: session } } : {}) });
      return Promise.resolve({ taskId: started.taskId, done: started.done });
    },
    cancel: (id) => done(host.cancel(id)),
    pause: (id) => done(host.pause(id)),
    resume: (id) => done(host.resume(id)),
    pauseActor: (id, actor, paused) => Promise.resolve(host.pauseActor(id, actor, paused)),
    respond: (id, r) => done(host.respond(id, r)),
    subscribe: (on) => host.subscribe({}, (env) => (mine.has(env.taskId) ? on(env) : undefined)),
    tree: () => Promise.resolve(host.tree()),
    timeline: (id) => host.timeline(id, 50),
    providers: () => Promise.resolve(host.providers()),
    models: () => host.models(),
    queue: (id, text) => host.queueMessage(id, text),
    takeQueued: (id) => host.takeQueued(id),
    switchModel: (id, provider, model) => host.switchModel(id, provider, model),
    undoList: () => host.undoList(workspace),
    undoRestore: (_task, id) => host.undoRestore(workspace, id, false),
  };
}

/** --attach: turns run in the supervisor; the event stream is the SSE follow of each started task. */
export function attachedBackend(client: ControlClient, workspace: string, options: TaskOptions): TuiBackend {
  const listeners = new Set<(env: Envelope) => void>();
  const aborts = new Set<AbortController>();
  const post = async (path: string, body: unknown): Promise<void> => {
    await client.post(path, body);
  };
  return {
    where: client.server.address,
    supervisor: { pid: client.server.pid, address: client.server.address },
    start: async (prompt, session, provider, model) => {
      // the same turn spec as the in-process path: `/model` override and the session this turn continues
      const { task_id: taskId } = await client.post<{ task_id: string }>('/api/start_task', {
        prompt,
        workspace,
        ...(provider !== undefined ? { provider, ...(model !== undefined ? { model } : {}) } : {}),
        ...(session ? { session: { resume: session } } : {}),
        options: { yolo: options.yolo, full_yolo: options.fullYolo, disable_agents: options.disabledAgents },
      });
      const ac = new AbortController();
      aborts.add(ac);
      const done = client
        .events({ taskId, follow: true, signal: ac.signal }, (env) => listeners.forEach((l) => l(env)))
        .then(() => settledStatus(client, taskId))
        .then((st) => st.outcome, () => null)
        .finally(() => aborts.delete(ac));
      return { taskId, done };
    },
    cancel: (id) => post('/api/cancel_task', { task_id: id }),
    pause: (id) => post('/api/pause_task', { task_id: id }),
    resume: (id) => post('/api/continue_task', { task_id: id }),
    pauseActor: (id, actor, paused) =>
      client.post<{ actors: string[] }>(paused ? '/api/pause_task' : '/api/continue_task', { task_id: id, actor }).then((r) => r.actors, () => []),
    respond: (_id, r) => post(r.approved ? '/api/approve' : '/api/deny', { request_id: r.requestId, answer: r.answer, scope: r.scope }),
    subscribe: (on) => {
      listeners.add(on);
      return () => {
        listeners.delete(on);
        aborts.forEach((a) => a.abort());
      };
    },
    tree: () => client.get<TreeNode>('/api/tree').catch(() => null), // a poll (≤ 2/s): a missed one leaves the Activity list empty until the next
    timeline: (id) => client.get<{ entries: unknown[] }>(`/api/timeline?task=${encodeURIComponent(id)}`).then((r) => r.entries, () => []),
    // an older supervisor without the endpoint: unknown, its start_task refuses an unknown provider anyway
    providers: () => client.get<{ providers: string[] }>('/api/providers').then((r) => r.providers, () => null),
    models: () => client.get<{ providers: ProviderChoice[] }>('/api/models').then((r) => r.providers, () => null),
    queue: (id, text) => client.post<{ queued: boolean }>('/api/queue_message', { task_id: id, text }).then((r) => r.queued, () => false),
    takeQueued: (id) => client.post<{ messages: string[] }>('/api/take_queued', { task_id: id }).then((r) => r.messages),
    switchModel: (id, provider, model) =>
      client.post<{ ok: boolean; error?: string }>('/api/switch_model', { task_id: id, provider, ...(model !== undefined ? { model } : {}) }).then(
        (r) => (r.ok ? null : (r.error ?? 'refused')),
        (err: Error) => err.message,
      ),
    // the supervisor knows a workspace through its tasks: before the first turn there is nothing to list
    undoList: (task) => (task === null ? Promise.resolve([]) : client.get<{ points: UndoListItem[] }>(`/api/undo?task=${encodeURIComponent(task)}`).then((r) => r.points)),
    undoRestore: (task, id) => client.post<UndoRestoreResult>('/api/undo', { task_id: task ?? '', id }),
  };
}
