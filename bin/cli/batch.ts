// `yagent batch TASKS.jsonl --parallel N`: many headless tasks on one supervisor, resumable, Ctrl-C drains.
import { statSync } from 'node:fs';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { Host, TaskOutcome } from '../host/types.js';
import { appendResult, finishedIds, readTasks, repairTail, type BatchResult, type BatchTask } from './batch-file.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { exitCodeFor } from './outcome.js';
import type { Streams } from './output.js';
import { onInterrupt } from './signals.js';
import { resultObject } from './stream-json.js';
import { unknownProvider } from '../host/providers.js';

export interface BatchRun {
  file: string;
  out: string;
  parallel: number;
  defaults: { yolo: boolean; fullYolo: boolean; disabledAgents: string[]; provider?: string; model?: string };
  forceQuit: boolean;
  io: Streams;
  isTty: boolean;
}

export function defaultOut(file: string): string {
  return file.replace(/\.jsonl?$/i, '') + '.results.jsonl';
}

function toResult(t: BatchTask, o: TaskOutcome, code: ExitCode, startedAt: number, needsApproval: string[] = []): BatchResult {
  return {
    id: t.id,
    status: code === EXIT.ok ? 'ok' : code === EXIT.needsApproval ? 'needs_approval' : 'error',
    ...resultObject(o, code, needsApproval, Date.now() - startedAt),
    finished_at: new Date().toISOString(),
  };
}

/** Why a task's workspace cannot be used, or null when it is a directory. */
function workspaceProblem(dir: string): string | null {
  try {
    return statSync(dir).isDirectory() ? null : `workspace is not a directory: ${dir}`;
  } catch {
    return `workspace does not exist: ${dir}`;
  }
}

function failedBeforeStart(t: BatchTask, error: string, startedAt: number, fix = 'fix "workspace" or create the directory'): BatchResult {
  const outcome: TaskOutcome = { taskId: '', text: '', stopReason: 'unaccounted', usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 }, notes: [], rolloutPath: null };
  return { ...toResult(t, outcome, EXIT.error, startedAt), error: `${error} (task line ${t.line}: ${fix})` };
}

export async function runBatch(host: Host, run: BatchRun): Promise<ExitCode> {
  const tasks = readTasks(run.file);
  repairTail(run.out);
  const done = finishedIds(run.out);
  const todo = tasks.filter((t) => !done.has(t.id));
  const skipped = tasks.length - todo.length;
  const counts = { ok: 0, failed: 0 };
  const running = new Map<string, { task: BatchTask; taskId: string }>();
  const needsApproval = new Map<string, string[]>();
  const unfinished: string[] = [];
  let next = 0;
  let stopping = false;

  const progress = (): void => {
    const line = `[batch] ${counts.ok + counts.failed}/${todo.length} done · ${running.size} running · ${counts.failed} failed · ${todo.length - next} pending${skipped > 0 ? ` · ${skipped} skipped (already done)` : ''}`;
    run.io.stderr(run.isTty ? `\r${line}\x1b[K` : `${line}\n`);
  };
  // nobody can answer in a batch: deny and remember, like a headless run
  const unsubscribe = host.subscribe({}, (env: Envelope) => {
    const p = env.payload;
    if (p.type !== 'user_help_needed') return;
    const list = needsApproval.get(env.taskId) ?? [];
    list.push(`${p.agent}: ${p.question}`);
    needsApproval.set(env.taskId, list);
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
      const model = t.model ?? run.defaults.model;
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
      const spec = {
        prompt: t.prompt,
        workspace: t.workspace,
        options: {
          yolo: t.options.yolo ?? t.options.full_yolo ?? run.defaults.yolo,
          fullYolo: t.options.full_yolo ?? run.defaults.fullYolo,
          disabledAgents: t.options.disable_agents ?? run.defaults.disabledAgents,
          ...(provider !== undefined ? { provider } : {}),
          ...(model !== undefined ? { model } : {}),
        },
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
  run.io.stderr(`[batch] finished: ${counts.ok} ok, ${counts.failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''} → ${run.out}\n`);
  return counts.failed > 0 ? EXIT.error : EXIT.ok;
}
