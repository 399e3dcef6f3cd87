// One queued task on this worker's host, exactly as a local batch task runs (same spec, same approval rule, same
// result JSON), plus where it ran: the diff of its changes, its session id, the worker and the attempt.
import type { Redactor } from '../../../src/runtime/redact.js';
import type { Host, TaskOptions } from '../../host/types.js';
import type { BatchResult, BatchTask } from '../batch-file.js';
import { failedBeforeStart, toResult } from '../batch.js';
import { EXIT } from '../exit-codes.js';
import { exitCodeFor } from '../outcome.js';
import type { JobData } from './payload.js';
import { workerId, type WorkspaceRoot } from './workspace.js';

export type QueueResult = BatchResult & {
  /** `git diff` of the task's changes (null: the workspace is not a git work tree, or the task never started). */
  diff: string | null;
  worker: string;
  attempt: number;
};

export interface JobContext {
  host: Host;
  root: WorkspaceRoot;
  /** Help requests the batch subscription denied, by host task id (nobody can answer a queued task). */
  needsApproval: Map<string, string[]>;
  /** Host task ids of the tasks running now: a second signal cancels them. */
  running: Set<string>;
  redactor: Redactor;
}

/** The result, redacted; `cancelled` when this worker stopped it (the task goes back to the queue). */
export async function runJob(ctx: JobContext, data: JobData, attempt: number): Promise<{ result: QueueResult; cancelled: boolean }> {
  const startedAt = Date.now();
  const extra = { diff: null, worker: workerId(), attempt };
  const ws = await ctx.root.prepare(data.where, data.id);
  const task: BatchTask = { id: data.id, line: data.line, prompt: data.prompt, workspace: 'dir' in ws ? ws.dir : '', options: {} };
  if ('problem' in ws) return { result: ctx.redactor.value({ ...failedBeforeStart(task, ws.problem, startedAt), ...extra }), cancelled: false };
  try {
    const started = ctx.host.startTask({ prompt: data.prompt, workspace: ws.dir, options: data.options as unknown as TaskOptions });
    ctx.running.add(started.taskId);
    const outcome = await started.done.finally(() => ctx.running.delete(started.taskId));
    const code = exitCodeFor(outcome, ctx.needsApproval.get(started.taskId) ?? [], false);
    ctx.needsApproval.delete(started.taskId);
    const diff = await ws.diff();
    const result: QueueResult = { ...toResult(task, outcome, code, startedAt), ...extra, diff };
    return { result: ctx.redactor.value(result), cancelled: code === EXIT.cancelled };
  } finally {
    ws.remove();
  }
}
