// Recovery before the Director's first call of a resumed turn (no model involved, zero tokens, deterministic):
// each delegation the last turn left interrupted is either continued from its rollout (B) or, when its
// ledger cannot be trusted, replaced by a report built from what the ledger holds (C). Either result becomes
// the call's last tool output (last wins when the conversation is repaired).
import type { ReplayResult, StoreApi } from '../../store/api.js';
import type { RunSettings } from './run-types.js';
import type { ToolOutcome } from '../tools/types.js';
import type { DelegationManager } from './delegation.js';
import type { ChatMessage } from './wire-types.js';
import type { Publish } from './loop-contract.js';
import type { PendingDelegation } from './run-types.js';
import { callsWithResults, repairToolPairs } from './tool-pairs.js';
import { thinklinkFromDetails, type ThinkEntry } from './compression/thinklink.js';

/** `replay`: the repaired list and the plans its rollout holds (the continued run's thinklink store). */
export type Assessment = { kind: 'replay'; messages: ChatMessage[]; plans: ThinkEntry[] } | { kind: 'degraded'; reason: string; messages: ChatMessage[] };

/** Every criterion is decidable without running anything: a failed one means C, never an error. */
export function assessReplay(r: ReplayResult, maxMessages: number): Assessment {
  if (!r.ok) return { kind: 'degraded', reason: `its rollout is ${r.reason.replace('_', ' ')}`, messages: [] };
  const degraded = (reason: string): Assessment => ({ kind: 'degraded', reason, messages: r.messages });
  if (r.meta === null) return degraded('its rollout has no session header');
  if (r.issues.corruptLines > 0) return degraded(`its ledger is torn (${r.issues.corruptLines} unreadable records)`);
  // the checkpoint's fingerprint was computed by the reader side from the same file: any drift means tampering or loss
  if (r.lastCheckpoint !== null && r.lastCheckpoint.fingerprint !== r.fingerprint) return degraded('its checkpoint fingerprint does not match the replayed conversation');
  if (maxMessages > 0 && r.messages.length > maxMessages) return degraded(`its replay has ${r.messages.length} messages, over [resume] max_replay_messages = ${maxMessages}`);
  if (r.messages[0]?.role !== 'system') return degraded('its replay does not start with the system prompt');
  return { kind: 'replay', messages: repairToolPairs(r.messages), plans: thinklinkFromDetails(r.thinklink) };
}

const FILE_TOOLS = new Set(['create_file', 'edit_file', 'delete_file', 'rename_file']);

/** The handoff report of C: tools run, files changed, last thoughts — what the ledger holds, never silence. */
export function degradedReport(target: string, reason: string, messages: readonly ChatMessage[]): string {
  const ran = callsWithResults(messages).filter((c) => c.result !== null);
  const counts = new Map<string, number>();
  for (const c of ran) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  const files = new Set<string>();
  for (const c of ran) if (FILE_TOOLS.has(c.name) && !c.result?.startsWith('{"error"')) for (const p of pathsOf(c.arguments)) files.add(p);
  const last = [...messages].reverse().find((m) => m.role === 'assistant' && m.content.trim() !== '');
  return [
    `The ${target} delegation was interrupted and cannot be continued from its ledger: ${reason}. What its ledger holds:`,
    `Tools run: ${counts.size === 0 ? 'none recorded' : [...counts].map(([n, k]) => `${n} ×${k}`).join(', ')}`,
    `Files changed: ${files.size === 0 ? 'none recorded' : [...files].join(', ')}`,
    `Last thoughts: ${last ? last.content.trim().slice(0, 800) : 'none recorded'}`,
    'Check the workspace, then delegate only the remaining work; do not redo what is listed as done.',
  ].join('\n');
}

function pathsOf(args: string): string[] {
  try {
    const a = JSON.parse(args) as Record<string, unknown>;
    return ['path', 'from', 'to', 'new_path'].map((k) => a[k]).filter((v): v is string => typeof v === 'string');
  } catch {
    return [];
  }
}

export interface RecoveryDeps {
  manager: DelegationManager;
  store: Pick<StoreApi, 'readReplay'>;
  publish: Publish;
  signal: AbortSignal;
  maxReplayMessages: number;
  /** `[resume] enable = false`: nothing is replayed; every interrupted delegation is handed over as C. */
  enabled: boolean;
}

/** One tool message per pending delegation, in order: the continued delegation's result, or the C report. */
export async function recoverDelegations(deps: RecoveryDeps, pending: readonly PendingDelegation[]): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  for (const p of pending) {
    const a = deps.enabled ? assessReplay(await deps.store.readReplay(p.rolloutPath), deps.maxReplayMessages) : { kind: 'degraded' as const, reason: 'resume is disabled ([resume] enable = false)', messages: [] };
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

function outcomeText(o: ToolOutcome): string {
  if (o.kind === 'ok') return o.content;
  if (o.kind === 'error') return JSON.stringify({ error: o.error });
  return JSON.stringify(o);
}

/** The restart hook of a run's delegations: the crashed call's latest rollout, assessed like a resumed one. */
export function crashRecovery(store: Pick<StoreApi, 'taskRollouts' | 'readReplay'>, s: RunSettings): (callId: string) => Promise<Assessment> {
  return async (callId) => {
    if (!s.resume) return { kind: 'degraded', reason: 'resume is disabled ([resume] enable = false)', messages: [] };
    const head = (await store.taskRollouts(s.projectId, s.taskId)).filter((h) => h.meta.delegationId === callId).at(-1);
    if (!head) return { kind: 'degraded', reason: 'it left no rollout', messages: [] };
    return assessReplay(await store.readReplay(head.path), s.maxReplayMessages);
  };
}
