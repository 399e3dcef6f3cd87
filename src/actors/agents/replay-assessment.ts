// Whether a delegation's rollout can be continued (B) or must be handed over as a report (C): decided from the
// replay alone, without running anything.
import type { ReplayResult, RolloutHead, StopFacts, StoreApi } from '../../store/api.js';
import type { ChatMessage } from './wire-types.js';
import { repairToolPairs } from './tool-pairs.js';
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

/** A rollout that holds nothing to continue: no stop and no message (its run was killed or crashed before its first
 *  records were on disk). */
export function holdsNothing(stop: StopFacts, r: ReplayResult): boolean {
  return !stop.found && r.ok && r.messages.length === 0;
}

/** A run's rollout that holds what it did: `heads` (one run's incarnations, oldest first) newest first, passing over
 *  any that `holdsNothing` for the one before it; the oldest is returned unread (`replay` absent: whoever needs it
 *  reads it, and `holdsNothing` says whether it is empty too). THE rule for a resumed turn's delegations and
 *  Directors (session-turn.ts) and a crashed delegation's or Director's restart (recovery.ts, director-restart.ts). */
export async function newestRecorded(store: Pick<StoreApi, 'readStopFacts' | 'readReplay'>, heads: readonly RolloutHead[]): Promise<{ head: RolloutHead; stop: StopFacts; replay?: ReplayResult } | null> {
  for (let i = heads.length - 1; i >= 0; i--) {
    const head = heads[i] as RolloutHead;
    const stop = await store.readStopFacts(head.path);
    if (stop.found || i === 0) return { head, stop };
    const replay = await store.readReplay(head.path);
    if (!holdsNothing(stop, replay)) return { head, stop, replay };
  }
  return null;
}
