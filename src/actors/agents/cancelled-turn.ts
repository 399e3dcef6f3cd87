// A cancelled turn still spent tokens. The Director that stopped within its grace hands its result over on the cancel
// (`result`: its own usage and every delegation's); one killed past its grace returned nothing, and then the task's
// rollouts say what each agent recorded (`llm_usage`). Either way the turn is `cancelled`, as before.
import type { StoreApi } from '../../store/api.js';
import { resultOnError, type AgentRunOutput } from './run-types.js';
import { UsageLedger } from './usage-ledger.js';

/** The Director's output for a turn the user cancelled; null when its run left nothing (it never opened a rollout). */
export async function cancelledRun(err: unknown, store: Pick<StoreApi, 'taskRollouts' | 'readUsage'>, projectId: string, taskId: string): Promise<AgentRunOutput | null> {
  const returned = resultOnError(err);
  if (returned !== null) return returned;
  const heads = await store.taskRollouts(projectId, taskId);
  const director = heads.filter((h) => h.meta.delegationId === null).at(-1);
  if (!director) return null;
  const ledger = new UsageLedger();
  for (const h of heads) ledger.merge(await store.readUsage(h.path));
  return {
    agent: 'director',
    stopReason: 'cancelled',
    text: '',
    steps: 0,
    usage: ledger.total(),
    usageByAgent: ledger.list(),
    rolloutPath: director.path,
    sessionId: director.meta.sessionId,
    thoughtFailures: 0,
  };
}
