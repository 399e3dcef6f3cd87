// `yagent batch TASKS.jsonl --parallel N`: many headless tasks on one supervisor, resumable, Ctrl-C drains.
import { statSync } from 'node:fs';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { Host, TaskOutcome, TaskSpec } from '../host/types.js';
import { appendResult, readTasks, repairTail, type BatchResult, type BatchTask } from './batch-file.js';
import { attemptStart, attemptTaskId, continuationPrompt, priorResults } from './batch-rerun.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { exitCodeFor } from './outcome.js';
import type { Streams } from './output.js';
import { onInterrupt } from './signals.js';
import { resultObject } from './stream-json.js';
import { unknownProvider } from '../host/providers.js';
import { emptyOutcome } from '../host/empty-outcome.js';

export interface BatchRun {
  file: string;
  out: string;
  parallel: number;
  defaults: { yolo: boolean; fullYolo: boolean; disabledAgents: string[]; provider?: string; model?: string };
  forceQuit: boolean;
  /** false (--no-retry-failed): a task whose last result failed is not run again (the batch still exits 1). */
  retryFailed?: boolean;
  io: Streams;
  isTty: boolean;
}

export function defaultOut(file: string): string {
  return file.replace(/\.jsonl?$/i, '') + '.results.jsonl';
}

export function toResult(t: BatchTask, o: TaskOutcome, code: ExitCode, startedAt: number, needsApproval: string[] = []): BatchResult {
  return {
    id: t.id,
    status: code === EXIT.ok ? 'ok' : code === EXIT.needsApproval ? 'needs_approval' : 'error',
    ...resultObject(o, code, needsApproval, Date.now() - startedAt),
    finished_at: new Date().toISOString(),
  };
}

/** Why a task's workspace cannot be used, or null when it is a directory. */
export function workspaceProblem(dir: string): string | null {
  try {
    return statSync(dir).isDirectory() ? null : `workspace is not a directory: ${dir}`;
  } catch {
    return `workspace does not exist: ${dir}`;
  }
}

export function failedBeforeStart(t: BatchTask, error: string, startedAt: number, fix = 'fix "workspace" or create the directory'): BatchResult {
  return { ...toResult(t, emptyOutcome(''), EXIT.error, startedAt), error: `${error} (task line ${t.line}: ${fix})` };
}

/** What a task runs as: the line's options over the batch's flags (a queued task is built from the same). */
export function taskSpec(t: BatchTask, defaults: BatchRun['defaults']): TaskSpec {
  const provider = t.provider ?? defaults.provider;
  const model = t.model ?? defaults.model;
  return {
    prompt: t.prompt,
    workspace: t.workspace,
    options: {
      yolo: t.options.yolo ?? t.options.full_yolo ?? defaults.yolo,
      fullYolo: t.options.full_yolo ?? defaults.fullYolo,
      disabledAgents: t.options.disable_agents ?? defaults.disabledAgents,
      ...(provider !== undefined ? { provider } : {}),
      ...(model !== undefined ? { model } : {}),
    },
  };
}

export async function runBatch(host: Host, run: BatchRun): Promise<ExitCode> {
  const tasks = readTasks(run.file);
  repairTail(run.out);
  const prior = priorResults(run.out);
  const retry = run.retryFailed !== false;
  // failed earlier and not tried again: the batch has still failed
  const keptFailed = tasks.filter((t) => prior.get(t.id)?.ok === false && !retry).map((t) => t.id);
  const todo = tasks.filter((t) => !prior.has(t.id) || (prior.get(t.id)?.ok === false && retry));
  const skipped = tasks.length - todo.length - keptFailed.length;
  const counts = { ok: 0, failed: 0 };
  const running = new Map<string, { task: BatchTask; taskId: string }>();
  const needsApproval = new Map<string, string[]>();
  const unfinished: string[] = [];
  let next = 0;
  let stopping = false;

  const progress = (): void => {
    const line = `[batch] ${counts.ok + counts.failed}/${todo.length} done · ${running.size} running · ${counts.failed} failed · ${todo.length - next} pending${skipped > 0 ? ` · ${skipped} skipped (already done)` : ''}${keptFailed.length > 0 ? ` · ${keptFailed.length} failed earlier, not retried` : ''}`;
    run.io.stderr(run.isTty ? `\r${line}\x1b[K` : `${line}\n`);
  };
  // nobody can answer in a batch: deny, and remember an approval (a question is none: the model decides), like a headless run
  const unsubscribe = host.subscribe({}, (env: Envelope) => {
    const p = env.payload;
    if (p.type !== 'user_help_needed') return;
    if (p.kind === 'authorization') needsApproval.set(env.taskId, [...(needsApproval.get(env.taskId) ?? []), `${p.agent}: ${p.question}`]);
    host.respond(env.taskId, { requestId: p.requestId, approved: false, answer: 'no user can answer in a batch run: use options.yolo for this task', scope: 'once' });
  });
  const off = onInterrupt(run.forceQuit, () => {
    stopping = true;
    run.io.stderr(`\n[batch] interrupted: draining ${running.size} running task(s) (Ctrl-C again to quit at once)\n`);
    for (const r of running.values()) host.cancel(r.taskId);
  });

  const worker = async (): Promise<void> => {
    while (!stopping && next < todo.length) {
      const t = todo[next++];
      if (!t) break;
      const startedAt = Date.now();
      const provider = t.provider ?? run.defaults.provider;
      const badProvider = provider === undefined ? null : unknownProvider(host.providers(), provider);
      const missing = badProvider ?? workspaceProblem(t.workspace);
      if (missing !== null) {
        // fails this task alone, with a result line saying why; the others continue
        appendResult(run.out, failedBeforeStart(t, missing, startedAt, badProvider !== null ? 'fix "provider"' : undefined));
        counts.failed += 1;
        run.io.stderr(`[batch] ${t.id}: ${missing}\n`);
        progress();
        continue;
      }
      // an interrupted attempt continues its session; a new one (first, or a retry of a failure) starts fresh
      const begin = await attemptStart(t.workspace, attemptTaskId(run.out, t.id, prior.get(t.id)?.attempts ?? 0));
      if (begin.kind === 'continue') run.io.stderr(`[batch] ${t.id}: continuing its interrupted session ${begin.sessionId}\n`);
      if (begin.kind === 'restart') run.io.stderr(`[batch] ${t.id}: starting over (${begin.reason})\n`);
      const spec: TaskSpec = {
        ...taskSpec(t, run.defaults),
        prompt: begin.kind === 'continue' ? continuationPrompt(t.prompt) : t.prompt,
        ...(begin.kind === 'continue' ? { session: { resume: begin.sessionId } } : begin.kind === 'fresh' ? { taskId: begin.taskId } : {}),
      };
      const started = host.startTask(spec);
      running.set(t.id, { task: t, taskId: started.taskId });
      progress();
      const outcome = await started.done;
      running.delete(t.id);
      const code = exitCodeFor(outcome, needsApproval.get(started.taskId) ?? [], false);
      if (code === EXIT.cancelled) {
        unfinished.push(t.id);
      } else {
        appendResult(run.out, toResult(t, outcome, code, startedAt, needsApproval.get(started.taskId) ?? []));
        if (code === EXIT.ok) counts.ok += 1;
        else counts.failed += 1;
      }
      progress();
    }
  };
  progress();
  try {
    await Promise.all(Array.from({ length: Math.min(run.parallel, Math.max(1, todo.length)) }, () => worker()));
  } finally {
    off();
    unsubscribe();
  }
  if (run.isTty) run.io.stderr('\n');
  const notStarted = todo.slice(next).map((t) => t.id);
  if (stopping) {
    const all = [...unfinished, ...notStarted];
    run.io.stderr(`[batch] interrupted: ${counts.ok + counts.failed} finished, ${all.length} did not finish: ${all.join(', ') || '(none)'}\n`);
    run.io.stderr(`[batch] re-run the same command to continue; results so far are in ${run.out}\n`);
    return EXIT.cancelled;
  }
  const kept = keptFailed.length > 0 ? `, ${keptFailed.length} failed earlier and not retried (${keptFailed.join(', ')})` : '';
  run.io.stderr(`[batch] finished: ${counts.ok} ok, ${counts.failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${kept} → ${run.out}\n`);
  // non-zero while any task's latest result is a failure, retried or not
  return counts.failed + keptFailed.length > 0 ? EXIT.error : EXIT.ok;
}
