// `yagent -p`: one headless turn (Director + delegations) in-process, or sent to a running supervisor.
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { settledStatus, type ControlClient } from '../attach/client.js';
import { newTaskId } from '../host/ids.js';
import { checkProviderFlag } from '../host/providers.js';
import { emptyOutcome } from '../host/empty-outcome.js';
import type { Host, TaskOutcome, TaskSpec } from '../host/types.js';
import type { OutputFormat } from './args.js';
import type { ExitCode } from './exit-codes.js';
import { exitCodeFor } from './outcome.js';
import { createSink, type Streams } from './output.js';
import { onInterrupt } from './signals.js';

export interface HeadlessRun {
  spec: TaskSpec;
  format: OutputFormat;
  forceQuit: boolean;
  io: Streams;
  /** The session a --resume/--continue turn continues (checked before the run); absent: a new session. */
  continues?: string;
}

/** A new session (and a fork) is named after its first turn: a stream-json reader knows at once what to --resume. */
function sessionOf(run: HeadlessRun, taskId: string): { session_id?: string } {
  const id = run.spec.session && run.spec.session.fork !== true ? run.continues : taskId;
  return id !== undefined ? { session_id: id } : {};
}

/** Runs in-process; nobody can answer, so every help request is denied; a denied approval is remembered (exit 3). */
export async function runHeadlessLocal(host: Host, run: HeadlessRun): Promise<ExitCode> {
  const sink = createSink(run.format, run.io);
  const needsApproval: string[] = [];
  const taskId = run.spec.taskId ?? newTaskId();
  const onEnvelope = (env: Envelope): void => {
    if (env.taskId !== taskId) return;
    sink.event(env);
    const p = env.payload;
    if (p.type === 'user_help_needed') {
      // the runtime has already told the asker nobody answers; a question (the model then decides) is not an approval
      if (p.kind === 'authorization') needsApproval.push(`${p.agent}: ${p.question}`);
      host.respond(env.taskId, { requestId: p.requestId, approved: false, answer: 'no user can answer in a headless run (-p): re-run with -y or use `yagent serve` + `yagent attach`', scope: 'once' });
    }
  };
  // subscribe before the start so not even the first event can be missed
  const unsubscribe = host.subscribe({ taskId }, onEnvelope);
  const started = host.startTask({ ...run.spec, taskId });
  sink.start(taskId, { prompt: run.spec.prompt, workspace: run.spec.workspace, ...sessionOf(run, taskId) });
  let interrupted = false;
  const off = onInterrupt(run.forceQuit, () => {
    interrupted = true;
    run.io.stderr('yagent: cancelling (Ctrl-C again to quit at once)…\n');
    host.cancel(taskId);
  });
  try {
    const outcome = await started.done;
    const code = exitCodeFor(outcome, needsApproval, interrupted);
    sink.finish(outcome, code, needsApproval);
    return code;
  } finally {
    off();
    unsubscribe();
  }
}


/** --attach: the task runs in the supervisor; its clients (attach) can answer approvals. */
export async function runHeadlessAttached(client: ControlClient, run: HeadlessRun): Promise<ExitCode> {
  const sink = createSink(run.format, run.io);
  if (run.spec.options.provider !== undefined) checkProviderFlag((await client.get<{ providers: string[] }>('/api/providers')).providers, run.spec.options.provider, undefined);
  const { task_id: taskId } = await client.post<{ task_id: string }>('/api/start_task', {
    prompt: run.spec.prompt,
    workspace: run.spec.workspace,
    options: { yolo: run.spec.options.yolo, full_yolo: run.spec.options.fullYolo, disable_agents: run.spec.options.disabledAgents },
    ...(run.spec.options.provider !== undefined ? { provider: run.spec.options.provider } : {}),
    ...(run.spec.options.model !== undefined ? { model: run.spec.options.model } : {}),
    ...(run.spec.session ? { session: { resume: run.spec.session.resume, continue_latest: run.spec.session.continueLatest, fork: run.spec.session.fork } } : {}),
  });
  sink.start(taskId, { prompt: run.spec.prompt, workspace: run.spec.workspace, supervisor: client.server.address, ...sessionOf(run, taskId) });
  run.io.stderr(`yagent: task ${taskId} sent to supervisor pid ${client.server.pid} (approve with \`yagent attach approve REQUEST\`)\n`);
  let interrupted = false;
  let cancelSent: Promise<unknown> = Promise.resolve();
  const off = onInterrupt(run.forceQuit, () => {
    interrupted = true;
    // kept and awaited below, so the request is never left detached when the run ends; a supervisor that cannot take
    // the cancel is gone, and the event stream and outcome below say so
    cancelSent = client.post('/api/cancel_task', { task_id: taskId }).catch(() => undefined);
  });
  try {
    await client.events({ taskId, follow: true }, (env) => sink.event(env));
    const st = await settledStatus(client, taskId);
    const outcome: TaskOutcome = st.outcome ?? emptyOutcome(taskId);
    const code = exitCodeFor(outcome, [], interrupted);
    sink.finish(outcome, code, []);
    return code;
  } finally {
    off();
    await cancelSent;
  }
}

