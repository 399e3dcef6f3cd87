// The Director is supervised like a delegation (issue 24): a crash (its worker died, its start failed) restarts it
// from its rollout (B, its interrupted delegations recovered too) up to `[resume] max_restarts`; past them, or when
// its ledger cannot be trusted, the turn ends with the degraded report the user reads (C). Runs on the client thread.
import type { StoreApi } from '../../store/api.js';
import type { ChatMessage, Event } from './wire-types.js';
import type { AgentRunInput, AgentRunOutput } from './run-types.js';
import { assessReplay, holdsNothing, newestRecorded } from './replay-assessment.js';
import { isCrash } from './recovery.js';
import { ledgerLines } from './ledger-report.js';
import { interruptedDelegations } from './session-turn.js';
import { UsageLedger } from './usage-ledger.js';

export interface DirectorRestartDeps {
  store: Pick<StoreApi, 'taskRollouts' | 'readReplay' | 'readStopFacts' | 'readUsage'>;
  projectId: string;
  taskId: string;
  resume: boolean;
  maxRestarts: number;
  maxReplayMessages: number;
  publish(event: Event): void;
  /** Ends what the crashed Director left running (its delegations): the restart continues them from their rollouts. */
  stopOrphans(): Promise<void>;
  signal?: AbortSignal;
}

/** Runs the Director through `spawn`, restarting it after each crash; a cancel or any other error is rethrown. */
export async function superviseDirector(deps: DirectorRestartDeps, input: AgentRunInput, spawn: (input: AgentRunInput) => Promise<AgentRunOutput>): Promise<AgentRunOutput> {
  let current = input;
  for (let attempt = 1; ; attempt++) {
    try {
      const out = await spawn(current);
      // the crashed incarnations' calls are in their rollouts only: the turn's usage is read from all of them
      return attempt === 1 ? out : { ...out, ...(await turnUsage(deps)) };
    } catch (err) {
      if (!isCrash(err) || deps.signal?.aborted === true) throw err;
      const reason = err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err);
      await deps.stopOrphans();
      const next = await restartFrom(deps, input);
      if (!deps.resume || attempt > deps.maxRestarts || next.kind === 'degraded') {
        const why = !deps.resume ? 'resume is disabled ([resume] enable = false)' : next.kind === 'degraded' ? next.reason : `[resume] max_restarts = ${deps.maxRestarts}`;
        return degradedTurn(deps, `The Director crashed ${attempt} time${attempt === 1 ? '' : 's'} (last: ${reason}) and was not restarted: ${why}.`, next);
      }
      deps.publish({ type: 'delegation_restarted', agent: 'director', callId: deps.taskId, child: 'director', attempt, maxRestarts: deps.maxRestarts, reason });
      current = next.input;
    }
  }
}

type Next = { kind: 'restart'; input: AgentRunInput } | { kind: 'degraded'; reason: string; messages: ChatMessage[] };

/** The input of the next incarnation: its last rollout's repaired replay and the delegations it left interrupted, or
 *  the first input again when it never opened a rollout or recorded nothing in one (nothing of it ran). */
async function restartFrom(deps: DirectorRestartDeps, input: AgentRunInput): Promise<Next> {
  const heads = await deps.store.taskRollouts(deps.projectId, deps.taskId);
  // an incarnation that died before its first records were on disk is passed over for the one before it
  const found = await newestRecorded(deps.store, heads.filter((h) => h.meta.delegationId === null));
  const r = found && (found.replay ?? (await deps.store.readReplay(found.head.path)));
  if (!found || !r || holdsNothing(found.stop, r)) return { kind: 'restart', input };
  const a = assessReplay(r, deps.maxReplayMessages);
  if (a.kind === 'degraded') return { kind: 'degraded', reason: `its ledger cannot be replayed: ${a.reason}`, messages: a.messages };
  const pending = await interruptedDelegations(deps.store, a.messages, heads);
  const { freshBoard: _fresh, session: _session, ...rest } = input;
  return { kind: 'restart', input: { ...rest, resumeFrom: { messages: a.messages, plans: a.plans, pending } } };
}

/** The turn's end past the restarts: the report (what the ledger holds) is its text, stop `panic`, every call counted. */
async function degradedTurn(deps: DirectorRestartDeps, headline: string, next: Next): Promise<AgentRunOutput> {
  const messages = next.kind === 'degraded' ? next.messages : next.input.resumeFrom?.messages ?? [];
  const text = [headline, 'What its ledger holds:', ...ledgerLines(messages), "The session keeps this turn's work: send the next prompt to go on."].join('\n');
  deps.publish({ type: 'log', level: 'error', message: headline });
  deps.publish({ type: 'ai_response', agent: 'director', text });
  const heads = await deps.store.taskRollouts(deps.projectId, deps.taskId);
  const head = heads.filter((h) => h.meta.delegationId === null).at(-1);
  return { agent: 'director', stopReason: 'panic', text, steps: 0, ...(await turnUsage(deps)), rolloutPath: head?.path ?? '', sessionId: head?.meta.sessionId ?? '', thoughtFailures: 0, error: headline };
}

async function turnUsage(deps: DirectorRestartDeps): Promise<Pick<AgentRunOutput, 'usage' | 'usageByAgent'>> {
  const ledger = new UsageLedger();
  for (const h of await deps.store.taskRollouts(deps.projectId, deps.taskId)) ledger.merge(await deps.store.readUsage(h.path));
  return { usage: ledger.total(), usageByAgent: ledger.list() };
}
