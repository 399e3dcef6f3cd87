// Sessions on the client thread: which session a turn belongs to, the earlier turns' conversation (from the last
// Director rollout, the source of truth), and the delegations that turn left interrupted (recovery B/C candidates).
import type { ReplayResult, RolloutHead, SessionSummary, StoreApi } from '../../store/api.js';
import { stopState } from '../../store/client.js';
import type { ChatMessage, StopReason } from './wire-types.js';
import { cancelledReport } from './ledger-report.js';
import { holdsNothing, newestRecorded } from './replay-assessment.js';
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
  /** A fork's: the parent's last turn it was made from (its first turn record keeps it: `SessionSummary.forkedTurn`). */
  forkedTurn?: string;
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
  const lastDirector = heads.filter((h) => h.meta.delegationId === null).at(-1)?.path ?? null;
  const director = lastDirector ?? (s.lastRolloutPath || null); // '' : a turn whose Director never opened one
  // the last turn left no Director rollout (its start failed): the earlier turns carry on, marked
  const unstarted = lastDirector === null && s.stopReason !== null && stopState(s.stopReason) !== 'finished' ? [marker(turnMarker(s.stopReason, s.lastPrompt, true))] : [];
  if (director === null) return { ...ids(s, taskId, req), resumed: true, history: unstarted, plans: [], pending: [] };
  const { replay, heads: walked } = lastDirector === null ? { replay: await store.readReplay(director), heads } : await recordedTurn(store, projectId, s, lastDirector, heads);
  if (!replay.ok) throw new SessionError(`session ${s.sessionId} cannot be resumed: its last rollout is ${replay.reason.replace('_', ' ')} (${director})`);
  const history = replay.messages.filter((m) => m.role !== 'system');
  const base = { ...ids(s, taskId, req), resumed: true, plans: thinklinkFromDetails(replay.thinklink) };
  if (lastDirector === null) return { ...base, history: [...history, ...unstarted], pending: [] };
  const stop = s.stopReason ?? (await directorStop(store, lastDirector));
  if (stop !== null && stopState(stop) === 'finished') return { ...base, history, pending: [] };
  const interrupted = await interruptedDelegations(store, history, walked);
  const note = marker(turnMarker(stop, s.lastPrompt, false));
  // cancel means cancel: what the user stopped is reported to the Director, never resumed
  if (stop === 'cancelled') return { ...base, history: [...history, ...(await cancelledResults(store, interrupted)), note], pending: [] };
  return { ...base, history: [...history, note], pending: req.fork === true ? [] : interrupted };
}

/** The last turn's Director rollout, or, when it holds no message (the turn was killed before its first records were
 *  on disk), the newest earlier turn's that does (`newestRecorded` per turn: a restarted Director's incarnations too),
 *  a fork's walk going on into the turns it was forked from. The rollouts of the session's own turns walked over
 *  follow `heads` in turn order, so a delegation continued in one of them is found at its newest rollout; a parent
 *  session's do not (a fork never continues its parent's delegations). */
async function recordedTurn(store: SessionStore, projectId: string, s: SessionSummary, path: string, heads: RolloutHead[]): Promise<{ replay: ReplayResult; heads: RolloutHead[] }> {
  const replay = await store.readReplay(path);
  if (!replay.ok || replay.messages.length > 0) return { replay, heads };
  let later: RolloutHead[] = [];
  for await (const turn of turnsNewestFirst(store, projectId, s, heads)) {
    if (turn.own) later = [...turn.heads, ...later];
    const found = await newestRecorded(store, turn.heads.filter((h) => h.meta.delegationId === null));
    const r = found && (found.replay ?? (await store.readReplay(found.head.path)));
    if (found && r && !holdsNothing(found.stop, r)) return { replay: r, heads: later };
  }
  return { replay, heads: later };
}

/** The rollouts of a session's turns, newest first; past its first turn, a fork's parent's turns up to the one the fork
 *  was made from (its first turn record names it: the conversation it was made from, whatever the clocks said), and so
 *  on up the forks. A fork recorded before the name was kept: the parent's turns that started before it did. */
async function* turnsNewestFirst(store: SessionStore, projectId: string, s: SessionSummary, lastHeads: RolloutHead[]): AsyncGenerator<{ heads: RolloutHead[]; own: boolean }> {
  yield { heads: lastHeads, own: true };
  for (const taskId of s.taskIds.slice(0, -1).reverse()) yield { heads: await store.taskRollouts(projectId, taskId), own: true };
  const seen = new Set([s.sessionId]);
  for (let fork = s; fork.forkedFrom !== undefined && !seen.has(fork.forkedFrom); ) {
    seen.add(fork.forkedFrom);
    const parent = await store.readSession(projectId, fork.forkedFrom);
    if (parent === null) return;
    const at = fork.forkedTurn !== undefined ? parent.taskIds.indexOf(fork.forkedTurn) : -1;
    const upTo = fork.startedAt;
    const before = at >= 0 ? parent.taskIds.slice(0, at + 1) : parent.taskIds.filter((_, i) => (parent.turnStarts[i] ?? Infinity) <= upTo);
    for (const taskId of before.reverse()) yield { heads: await store.taskRollouts(projectId, taskId), own: false };
    fork = parent;
  }
}

/** The last turn's Director stop when the session ledger has none (the process ended before the turn's end was
 *  written, e.g. a second Ctrl-C): a recorded cancel is still a cancel, a recorded answer still an answer. */
async function directorStop(store: SessionStore, path: string): Promise<StopReason | null> {
  const f = await store.readStopFacts(path);
  return f.found ? f.stopReason : null;
}

/** The result each cancelled delegation's call gets on the next turn (last wins over its "abandoned" result). */
async function cancelledResults(store: SessionStore, cancelled: readonly PendingDelegation[]): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  for (const p of cancelled) {
    const r = await store.readReplay(p.rolloutPath);
    out.push({ role: 'tool', toolCallId: p.callId, name: `delegate_${p.target}`, content: cancelledReport(p.target, r.ok ? r.messages : []) });
  }
  return out;
}

function marker(text: string): ChatMessage {
  return { role: 'user', content: text };
}

/** How the previous turn ended, as the Director reads it before the new prompt (every unfinished turn is marked). */
export function turnMarker(stop: StopReason | null, prompt: string, unstarted: boolean): string {
  const p = `"${prompt.replace(/\s+/g, ' ').slice(0, 200)}"`;
  if (unstarted) return `[The previous turn (${p}) ended with ${stop ?? 'an interruption'} before the Director started; nothing of it ran.]`;
  if (stop === 'cancelled') return `[The user cancelled the previous turn (${p}) before it finished. Nothing of it is resumed; the results above say what it did before it was cancelled.]`;
  if (stop === null) return `[The previous turn (${p}) was interrupted before it finished (the process stopped); its work up to then is above.]`;
  if (stop === 'paused') return `[The previous turn (${p}) was paused and not continued before the process stopped; its work up to then is above.]`;
  return `[The previous turn (${p}) stopped with ${stop} before it finished; its partial work is above and is kept.]`;
}

function ids(s: SessionSummary, taskId: string, req: SessionRequest): Pick<PreparedTurn, 'sessionId' | 'boardId' | 'forkedFrom' | 'forkedTurn'> {
  return req.fork === true ? { sessionId: taskId, boardId: taskId, forkedFrom: s.sessionId, forkedTurn: s.lastTaskId } : { sessionId: s.sessionId, boardId: s.sessionId };
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
export async function interruptedDelegations(store: Pick<SessionStore, 'readStopFacts' | 'readReplay'>, history: readonly ChatMessage[], heads: readonly RolloutHead[]): Promise<PendingDelegation[]> {
  const out: PendingDelegation[] = [];
  for (const m of history) {
    if (m.role !== 'assistant') continue;
    for (const c of m.toolCalls ?? []) {
      if (!c.name.startsWith('delegate_')) continue;
      const found = await newestRecorded(store, heads.filter((h) => h.meta.delegationId === c.id));
      if (!found) continue; // never started: the repaired conversation says so and the Director decides
      const { head: child, stop } = found;
      // a provider that reuses call ids maps two calls to one child: continuing it twice would repeat its work
      if (out.some((p) => p.rolloutPath === child.path)) continue;
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
