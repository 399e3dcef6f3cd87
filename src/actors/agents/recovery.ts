// Recovery before the Director's first call of a resumed turn (no model involved, zero tokens, deterministic):
// each delegation the last turn left interrupted is either continued from its rollout (B) or, when its
// ledger cannot be trusted, replaced by a report built from what the ledger holds (C). Either result becomes
// the call's last tool output (last wins when the conversation is repaired). Delegation uses this module; it
// depends on delegation only through the `Delegator` interface below.
import type { StoreApi, NoteMeta, ReplayResult, SessionMeta, WorkspaceFacts } from '../../store/api.js';
import type { RunSettings, PendingDelegation } from './run-types.js';
import type { ToolOutcome } from '../tools/types.js';
import type { ChatMessage } from './wire-types.js';
import type { Publish } from './loop-contract.js';
import type { ThinkEntry } from './compression/thinklink.js';
import { assessReplay, newestRecorded, type Assessment } from './replay-assessment.js';
import { degradedReport } from './ledger-report.js';
import { workspaceChanges, workspaceFacts } from './workspace-facts.js';

/** What recovery needs of a run's delegations (the DelegationManager): continue one (B), or hand over its report (C). */
export interface Delegator {
  delegate(callId: string, target: string, args: { task: string }, signal: AbortSignal, resumeFrom?: { messages: ChatMessage[]; plans: ThinkEntry[] }): Promise<ToolOutcome>;
  degraded(callId: string, target: string, report: string): Promise<NoteMeta | null>;
}

export interface RecoveryDeps {
  manager: Delegator;
  store: Pick<StoreApi, 'readReplay'>;
  publish: Publish;
  signal: AbortSignal;
  maxReplayMessages: number;
  /** `[resume] enable = false`: nothing is replayed; every interrupted delegation is handed over as C. */
  enabled: boolean;
  /** `[resume] degrade_on_workspace_change` and where to look: a replay onto a changed workspace becomes C. */
  workspace: WorkspaceCheck;
}

export interface WorkspaceCheck {
  cwd: string;
  degradeOnChange: boolean;
}

/** B only onto the workspace the run last saw: HEAD, branch or a touched file that changed since turns it into C. A run
 *  killed before its checkpoint (kill -9 writes none) is checked against HEAD and branch at its rollout's start. */
export async function checkWorkspace(a: Assessment, r: ReplayResult, w: WorkspaceCheck): Promise<Assessment> {
  if (a.kind !== 'replay' || !w.degradeOnChange || !r.ok) return a;
  const checkpoint = r.lastCheckpoint?.workspace;
  const then = checkpoint ?? startFacts(r.meta);
  if (then === undefined) return a;
  const changed = workspaceChanges(then, await workspaceFacts(w.cwd, then.files.map((f) => f.path)));
  if (changed.length === 0) return a;
  return { kind: 'degraded', reason: `the workspace changed since ${checkpoint ? 'its checkpoint' : 'it started'} (${changed.join('; ')})`, messages: a.messages };
}

/** HEAD and branch when the rollout opened (the store's git identity); none outside a repository or when git failed. */
function startFacts(meta: SessionMeta | null): WorkspaceFacts | undefined {
  const git = meta?.git;
  if (!git) return undefined;
  return { head: git.commit ?? null, branch: git.branch ?? null, files: [] };
}

/** One tool message per pending delegation, in order: the continued delegation's result, or the C report. */
export async function recoverDelegations(deps: RecoveryDeps, pending: readonly PendingDelegation[]): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  for (const p of pending) {
    const a = deps.enabled ? await assessed(deps.store, p.rolloutPath, deps.maxReplayMessages, deps.workspace) : { kind: 'degraded' as const, reason: 'resume is disabled ([resume] enable = false)', messages: [] };
    let content: string;
    if (a.kind === 'replay') {
      deps.publish({ type: 'log', level: 'info', message: `recovery: continuing ${p.target} delegation ${p.callId} from its rollout (${a.messages.length} messages)` });
      content = outcomeText(await deps.manager.delegate(p.callId, p.target, { task: p.task }, deps.signal, a));
    } else {
      deps.publish({ type: 'log', level: 'warn', message: `recovery: ${p.target} delegation ${p.callId} degraded: ${a.reason}` });
      const report = degradedReport(p.target, a.reason, a.messages);
      const note = await deps.manager.degraded(p.callId, p.target, report);
      content = `[${p.target} degraded${note ? ` · note ${note.ref}` : ''}]\n${report}`;
    }
    out.push({ role: 'tool', toolCallId: p.callId, name: `delegate_${p.target}`, content });
  }
  return out;
}

async function assessed(store: Pick<StoreApi, 'readReplay'>, path: string, maxMessages: number, w: WorkspaceCheck): Promise<Assessment> {
  const r = await store.readReplay(path);
  return checkWorkspace(assessReplay(r, maxMessages), r, w);
}

function outcomeText(o: ToolOutcome): string {
  if (o.kind === 'ok') return o.content;
  if (o.kind === 'error') return JSON.stringify({ error: o.error });
  return JSON.stringify(o);
}

/** The restart hook of a run's delegations: the crashed call's latest rollout, assessed like a resumed one. */
export function crashRecovery(store: Pick<StoreApi, 'taskRollouts' | 'readReplay' | 'readStopFacts'>, s: RunSettings): (callId: string) => Promise<Assessment> {
  return async (callId) => {
    if (!s.resume) return { kind: 'degraded', reason: 'resume is disabled ([resume] enable = false)', messages: [] };
    // an earlier restart that died before its first records left an empty newest rollout: the one before it holds the work
    const found = await newestRecorded(store, (await store.taskRollouts(s.projectId, s.taskId)).filter((h) => h.meta.delegationId === callId));
    if (!found) return { kind: 'degraded', reason: 'it left no rollout', messages: [] };
    const r = found.replay ?? (await store.readReplay(found.head.path));
    return checkWorkspace(assessReplay(r, s.maxReplayMessages), r, { cwd: s.workspace, degradeOnChange: s.degradeOnWorkspaceChange });
  };
}

/** A worker that died under a run (throw outside the loop, OOM, exit, a failed start), as opposed to a failed run. */
export function isCrash(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ACTOR_CRASHED' || code === 'ACTOR_OOM' || code === 'ACTOR_EXITED';
}

/** After a crash: restart from the replay (B) while restarts remain and the ledger can be trusted, else the report (C). */
export function restartOrReport(target: string, a: Assessment, attempt: number, maxRestarts: number, crash: string): { kind: 'restart'; from: Extract<Assessment, { kind: 'replay' }> } | { kind: 'report'; report: string } {
  if (attempt <= maxRestarts && a.kind === 'replay') return { kind: 'restart', from: a };
  const why = a.kind === 'degraded' ? `its worker crashed (${crash}) and ${a.reason}` : `it crashed ${attempt} times (last: ${crash}; [resume] max_restarts = ${maxRestarts})`;
  return { kind: 'report', report: degradedReport(target, why, a.messages) };
}
