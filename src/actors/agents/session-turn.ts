// Sessions on the client thread: which session a turn belongs to, the earlier turns' conversation (from the last
// Director rollout, the source of truth), and the delegations that turn left interrupted (recovery B/C candidates).
import type { RolloutHead, SessionSummary, StoreApi } from '../../store/api.js';
import { stopState } from '../../store/client.js';
import type { ChatMessage } from './wire-types.js';
import type { PendingDelegation } from './run-types.js';
import { thinklinkFromDetails, type ThinkEntry } from './compression/thinklink.js';

export interface SessionRequest {
  /** Continue this session (its id is the `session_id` a run reported). */
  resume?: string;
  /** Continue the most recent session of this workspace. */
  continueLatest?: boolean;
  /** With resume/continue: a new session starting from a copy of the old one's conversation. */
  fork?: boolean;
}

export interface PreparedTurn {
  sessionId: string;
  boardId: string;
  resumed: boolean;
  history: ChatMessage[];
  /** The plans (thinklink) of the last Director rollout: compression's plan store continues from them. */
  plans: ThinkEntry[];
  pending: PendingDelegation[];
  forkedFrom?: string;
}

export type SessionStore = Pick<StoreApi, 'readSession' | 'listSessions' | 'taskRollouts' | 'readReplay' | 'readStopFacts'>;

/** A refusal the user reads as one line (unknown session, failed last turn, unreadable ledger). */
export class SessionError extends Error {
  readonly code = 'SESSION_NOT_RESUMABLE';
}

/** The session a turn continues (null: a new one), or the one-line refusal as a SessionError: an unknown session,
 *  none to continue, a failed last turn (unless forked). The CLI asks it before it boots anything. */
export async function resolveSession(store: Pick<SessionStore, 'readSession' | 'listSessions'>, projectId: string, req: SessionRequest): Promise<SessionSummary | null> {
  if (req.resume === undefined && req.continueLatest !== true) return null;
  const s = await findSession(store, projectId, req);
  if (req.fork !== true && !s.resumable.ok) throw new SessionError(`session ${s.sessionId} cannot be resumed: ${s.resumable.reason}`);
  return s;
}

export async function prepareTurn(store: SessionStore, projectId: string, taskId: string, boardId: string | undefined, req: SessionRequest): Promise<PreparedTurn> {
  const s = await resolveSession(store, projectId, req);
  if (s === null) return { sessionId: boardId ?? taskId, boardId: boardId ?? taskId, resumed: false, history: [], plans: [], pending: [] };
  const heads = await store.taskRollouts(projectId, s.lastTaskId);
  const director = heads.filter((h) => h.meta.delegationId === null).at(-1)?.path ?? s.lastRolloutPath;
  if (director === null) return { ...ids(s, taskId, req), resumed: true, history: [], plans: [], pending: [] };
  const replay = await store.readReplay(director);
  if (!replay.ok) throw new SessionError(`session ${s.sessionId} cannot be resumed: its last rollout is ${replay.reason.replace('_', ' ')} (${director})`);
  const history = replay.messages.filter((m) => m.role !== 'system');
  // a turn that ended normally left nothing interrupted; a paused, cancelled or killed one may have
  const interrupted = s.stopReason === null || stopState(s.stopReason) === 'resumable';
  const pending = interrupted && req.fork !== true ? await interruptedDelegations(store, history, heads) : [];
  return { ...ids(s, taskId, req), resumed: true, history, plans: thinklinkFromDetails(replay.thinklink), pending };
}

function ids(s: SessionSummary, taskId: string, req: SessionRequest): Pick<PreparedTurn, 'sessionId' | 'boardId' | 'forkedFrom'> {
  return req.fork === true ? { sessionId: taskId, boardId: taskId, forkedFrom: s.sessionId } : { sessionId: s.sessionId, boardId: s.sessionId };
}

async function findSession(store: Pick<SessionStore, 'readSession' | 'listSessions'>, projectId: string, req: SessionRequest): Promise<SessionSummary> {
  if (req.resume !== undefined) {
    const s = await store.readSession(projectId, req.resume);
    if (!s) throw new SessionError(`no session "${req.resume}" in this workspace (list them with \`yagent sessions\`)`);
    return s;
  }
  const [latest] = await store.listSessions(projectId);
  if (!latest) throw new SessionError('no session to continue in this workspace (start one with `yagent -p "..."`)');
  return latest;
}

/** delegate_* calls whose child rollout did not finish: paused, cancelled, or no terminal record at all (killed). */
async function interruptedDelegations(store: SessionStore, history: readonly ChatMessage[], heads: readonly RolloutHead[]): Promise<PendingDelegation[]> {
  const out: PendingDelegation[] = [];
  for (const m of history) {
    if (m.role !== 'assistant') continue;
    for (const c of m.toolCalls ?? []) {
      if (!c.name.startsWith('delegate_')) continue;
      const child = heads.filter((h) => h.meta.delegationId === c.id).at(-1);
      if (!child) continue; // never started: the repaired conversation says so and the Director decides
      const stop = await store.readStopFacts(child.path);
      if (stop.found && stopState(stop.stopReason) !== 'resumable') continue;
      out.push({ callId: c.id, target: c.name.slice('delegate_'.length), task: taskOf(c.arguments), rolloutPath: child.path });
    }
  }
  return out;
}

function taskOf(args: string): string {
  try {
    const t = (JSON.parse(args) as { task?: unknown }).task;
    return typeof t === 'string' ? t : '';
  } catch {
    return '';
  }
}
