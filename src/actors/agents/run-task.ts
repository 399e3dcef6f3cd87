// runTask: the one entry clients call to run a whole task (Director in its own worker) on a Runtime.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Runtime } from '../../runtime/runtime.js';
import { warnEvent } from '../../runtime/log-event.js';
import type { YagentConfig } from '../../runtime/config/index.js';
import type { NoteMeta, StoreApi } from '../../store/api.js';
import { STORE_ACTOR, projectIdFor } from '../../store/client.js';
import type { StopReason, Usage } from './wire-types.js';
import type { UsageEntry } from '../../runtime/protocol/index.js';
// the path constant only: importing agent-actor.ts here would load the SDKs, tools and loop on the client thread
import { AGENT_MODULE } from './agent-module.js';
import { settingsFrom } from './run-settings.js';
import type { AgentRunInput, AgentRunOutput } from './run-types.js';
import { prepareTurn, type PreparedTurn, type SessionRequest } from './session-turn.js';
import { cancelledRun } from './cancelled-turn.js';
import { superviseDirector } from './director-restart.js';
import { sweepAtStart } from './writer-sweep.js';

export type { SessionRequest } from './session-turn.js';

export interface RunTaskOptions {
  prompt: string;
  workspace: string;
  /** The loaded config (timeouts, pools, steps, lang, blackboard valves). */
  config: YagentConfig;
  /** Where the workers load the config from (undefined = the default location). */
  configPath?: string;
  /** -y: every authorization bypassed. */
  yolo?: boolean;
  /** -Y: implies -y, no ask_user_for_help, autonomous-decision instruction. */
  fullYolo?: boolean;
  taskId?: string;
  /** Board scope = session; a resumed session passes its old board id. */
  boardId?: string;
  /** The host made `taskId` for this run (no earlier run can have written to a board of that id). */
  newTask?: boolean;
  /** -d: sub-agents the Director may not use (names or `all`); their delegate_* tools disappear. Unknown names throw. */
  disabledAgents?: readonly string[];
  /** A configured provider name every agent of this turn talks to (the routing wrapper's override). */
  provider?: string;
  /** `--model`: that provider's model for this turn (without `provider`: the default provider with this model). */
  model?: string;
  /** --resume / --continue / --fork: which session this turn continues (absent = a new session). */
  session?: SessionRequest;
  signal?: AbortSignal;
}

/** The conversation this turn belongs to: `id` is what `--resume` takes. */
export interface SessionInfo {
  id: string;
  resumed: boolean;
  forkedFrom?: string;
}

export interface TaskResult {
  taskId: string;
  boardId: string;
  text: string;
  stopReason: StopReason;
  /** Every agent's tokens: the Director's and each delegation's (nested ones included). */
  usage: Usage;
  usageByAgent: UsageEntry[];
  notes: NoteMeta[];
  /** Set when the board could not be listed: `notes` is then unknown, never "0 notes". */
  notesError?: string;
  rolloutPath: string;
  /** The Director's rollout session (one per turn). */
  sessionId: string;
  session: SessionInfo;
  error?: string;
}

export { DEFAULT_ARTIFACT_TOKEN_BUDGET, settingsFrom } from './run-settings.js';

/** Runs the Director for one prompt; the store service must already run under the name 'store'.
 *  Publishes exactly one `task_end` whatever happens (return, throw, cancel): every client's stream ends. */
export async function runTask(runtime: Runtime, o: RunTaskOptions): Promise<TaskResult> {
  const taskId = o.taskId ?? randomUUID();
  const store = runtime.connect<StoreApi>(STORE_ACTOR);
  const end = (stopReason: StopReason, text?: string): void =>
    runtime.publish({ name: 'director', taskId }, { type: 'task_end', stopReason, ...(text !== undefined ? { text } : {}) });
  const projectId = projectIdFor(o.workspace);
  let out: AgentRunOutput;
  let turn: PreparedTurn;
  let turnPoint: Promise<string | null> = Promise.resolve(null);
  let swept: Promise<void> = Promise.resolve();
  try {
    turn = await prepareTurn(store, projectId, taskId, o.boardId, o.session ?? {});
    const settings = settingsFrom(o, taskId, turn.boardId);
    const input: AgentRunInput = {
      agent: 'director',
      role: 'director',
      brief: o.prompt,
      settings,
      delegationId: null,
      parentSessionId: null,
      ...(turn.resumed ? { session: { history: turn.history, plans: turn.plans, pending: turn.pending, resumed: true } } : {}),
      ...(o.newTask === true && !turn.resumed && o.boardId === undefined ? { freshBoard: true } : {}),
    };
    const started = { kind: 'turn_start' as const, ts: Date.now(), taskId, prompt: o.prompt, workspace: resolve(o.workspace), ...(turn.forkedFrom ? { forkedFrom: turn.forkedFrom } : {}), ...(turn.forkedTurn ? { forkedTurn: turn.forkedTurn } : {}) };
    // the ledger's turn_start is written while the Director boots: the store worker's boot stays off the path
    // to the first model call; a failed write stops the Director and fails the task as before
    const ledger = new AbortController();
    const recorded = store.recordSessionTurn(projectId, turn.sessionId, started).catch((err: unknown) => {
      ledger.abort(err);
      throw err;
    });
    const signal = o.signal ? AbortSignal.any([o.signal, ledger.signal]) : ledger.signal;
    // the turn's undo point is taken while the Director boots (it writes nothing itself; a write delegation's own
    // point queues behind this one in the store)
    turnPoint = store.undoPoint({ workspace: resolve(o.workspace), kind: 'turn', agent: 'director', taskId, label: o.prompt.slice(0, 200) }).then(
      (p) => p?.id ?? null,
      (e: unknown) => {
        runtime.publish({ name: 'director', taskId }, warnEvent('undoPoint', 'no undo point before this turn', e));
        return null;
      },
    );
    // worktrees a killed yagent left in this repository go (their work kept on a branch), off the first request's path
    swept = sweepAtStart(resolve(o.workspace), (e) => runtime.publish({ name: 'director', taskId }, e));
    const spawn = async (incarnation: AgentRunInput): Promise<AgentRunOutput> =>
      (await runtime.startTask(taskId)).spawn<AgentRunInput, AgentRunOutput>({ name: 'director', module: AGENT_MODULE, input: incarnation, delegationId: null }, signal);
    // a crashed Director is restarted from its rollout like a delegation (director-restart.ts)
    const director = (): Promise<AgentRunOutput> =>
      superviseDirector(
        {
          store,
          projectId,
          taskId,
          resume: settings.resume,
          maxRestarts: settings.maxRestarts,
          maxReplayMessages: settings.maxReplayMessages,
          publish: (e) => runtime.publish({ name: 'director', taskId }, e),
          stopOrphans: () => stopOrphans(runtime, taskId),
          signal,
        },
        input,
        spawn,
      );
    // a turn the user cancelled ends like any other (ledger, task_end), with the tokens it spent
    const cancelled = async (err: unknown): Promise<AgentRunOutput> => {
      if (o.signal?.aborted !== true) throw err;
      const spent = await cancelledRun(err, store, projectId, taskId).catch((e: unknown) => {
        runtime.publish({ name: 'director', taskId }, warnEvent('readUsage', 'the tokens of the cancelled turn could not be read from its rollouts', e));
        return null;
      });
      if (spent === null) throw err;
      return spent;
    };
    [out] = await Promise.all([director().catch(cancelled), recorded]);
  } catch (err) {
    end(o.signal?.aborted === true ? 'cancelled' : 'panic');
    throw err;
  }
  const warn = (what: string) => (e: unknown) => runtime.publish({ name: 'director', taskId }, { type: 'log', level: 'warn', message: `${what}: ${String(e)}` });
  await store
    .recordSessionTurn(projectId, turn.sessionId, { kind: 'turn_end', ts: Date.now(), taskId, stopReason: out.stopReason, usage: out.usage, rolloutPath: out.rolloutPath })
    .catch(warn('session ledger not updated'));
  await swept;
  const pointId = await turnPoint;
  if (pointId !== null) await store.undoEnd(resolve(o.workspace), pointId).catch(warn('the end state of this turn\'s undo point was not recorded'));
  // the task memory the Director saved (debounced) is on disk when the task ends
  await store.flushTaskMemory().catch(warn('task memory flush failed'));
  const listed = await listTaskNotes(runtime, taskId, turn.boardId);
  end(out.stopReason, out.text);
  return {
    taskId,
    boardId: turn.boardId,
    text: out.text,
    stopReason: out.stopReason,
    usage: out.usage,
    usageByAgent: out.usageByAgent ?? [],
    notes: listed.notes,
    ...(listed.error !== undefined ? { notesError: listed.error } : {}),
    rolloutPath: out.rolloutPath,
    sessionId: out.sessionId,
    session: { id: turn.sessionId, resumed: turn.resumed, ...(turn.forkedFrom ? { forkedFrom: turn.forkedFrom } : {}) },
    ...(out.error !== undefined ? { error: out.error } : {}),
  };
}

/** Ends every actor of the task a crashed Director left running (its delegations), each with its stop hook. */
async function stopOrphans(runtime: Runtime, taskId: string): Promise<void> {
  const task = runtime.task(taskId);
  if (!task) return;
  await Promise.all(task.supervisor.liveNames().filter((n) => n !== 'director').map((n) => task.supervisor.terminateChild(n, 'cancelled')));
}

/** The task's notes; a failed listing is a warning and an error string, not an empty list. */
async function listTaskNotes(runtime: Runtime, taskId: string, boardId: string): Promise<{ notes: NoteMeta[]; error?: string }> {
  try {
    return { notes: await runtime.connect<StoreApi>(STORE_ACTOR).listNotes(boardId) };
  } catch (err) {
    const event = warnEvent('listNotes', `notes of board ${boardId} could not be listed`, err);
    runtime.publish({ name: 'director', taskId }, event);
    return { notes: [], error: event.message };
  }
}
