// A run's first messages, and their records in its rollout. A run that first continues interrupted delegations (a
// resumed Director turn, a continued delegation with interrupted children) records the conversation it already has,
// durably, BEFORE that recovery starts (it may run for minutes): a kill meanwhile leaves a rollout that still holds the
// session, never only its header. The recovered results then land through one `compacted` record, so the rollout
// replays to exactly the in-memory list that compression counts from (`replacesCount`).
import type { Publish, Recorder } from './loop-contract.js';
import type { AgentRunInputParsed, PendingDelegation } from './run-types.js';
import type { ChatMessage } from './wire-types.js';
import { recoverDelegations, type RecoveryDeps } from './recovery.js';
import { repairToolPairs } from './tool-pairs.js';
import { describeInterrupted } from './interrupted-calls.js';
import { compactedRecord } from './compression/compacted.js';
import { publishWarning } from '../../runtime/log-event.js';
import { freshMessages } from './first-call.js';

export interface InitialRecording {
  recorder: Recorder;
  now: () => number;
  publish: Publish;
  agent: string;
}

/** A fresh run: system + brief. A continued delegation: its repaired replay. A resumed Director turn: the fresh
 *  system prompt (project context re-injected), the earlier turns with interrupted delegations recovered, the prompt.
 *  Every message returned is recorded (the loop is told not to record them again). */
export async function initialMessages(input: AgentRunInputParsed, system: string, mutates: (name: string) => boolean, recovery: RecoveryDeps, rec: InitialRecording): Promise<ChatMessage[]> {
  if (input.resumeFrom) {
    // a call that started and left no result is not run again: its result says so, with the workspace as it is now
    const messages = await describeInterrupted(input.resumeFrom.messages, input.settings.workspace, mutates);
    // a continued delegation's new rollout shadows its older one: it holds the replay, on disk, before any call
    return recordedAround(messages, input.resumeFrom.pending, (recovered) => (recovered.length === 0 ? messages : repairToolPairs([...messages, ...recovered])), recovery, rec, true);
  }
  const [head, brief] = freshMessages(system, input.brief);
  if (!input.session) return recordedAround([head, brief], [], () => [head, brief], recovery, rec);
  const { history, pending } = input.session;
  // before recovery the prompt follows the earlier turns as they were read; recovery's results then go to their calls
  return recordedAround([head, ...history, brief], pending, (recovered) => [head, ...repairToolPairs([...history, ...recovered]), brief], recovery, rec);
}

/** Records `before` (durably when recovery follows, or when asked), recovers `pending`, and records the change to
 *  `after(recovered)`. */
async function recordedAround(
  before: ChatMessage[],
  pending: readonly PendingDelegation[],
  after: (recovered: ChatMessage[]) => ChatMessage[],
  recovery: RecoveryDeps,
  rec: InitialRecording,
  durable = false,
): Promise<ChatMessage[]> {
  const items = (ms: readonly ChatMessage[]) => ms.map((m) => ({ type: 'response_item' as const, ts: rec.now(), payload: m }));
  const drained = (): Promise<void> => rec.recorder.drain().catch((e: unknown) => publishWarning(rec.publish, 'rollout', `${rec.agent}: the conversation was not confirmed on disk`, e));
  if (pending.length === 0) {
    const messages = after([]);
    rec.recorder.append(items(messages));
    if (durable) await drained();
    return messages;
  }
  rec.recorder.append(items(before));
  await drained();
  const messages = after(await recoverDelegations(recovery, pending));
  rec.recorder.append([compactedRecord(before, messages, rec.now())]);
  return messages;
}
