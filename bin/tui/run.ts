// `yagent` on a TTY (in-process) and `yagent --attach` (a running `yagent serve`): opens the TUI until /quit.
import { SessionLedger } from '../../src/store/sessions.js';
import { dataRoot, projectIdFor } from '../../src/store/paths.js';
import type { ControlClient } from '../attach/client.js';
import type { SessionFlags } from '../cli/args.js';
import { EXIT, type ExitCode } from '../cli/exit-codes.js';
import type { Host, TaskOptions } from '../host/types.js';
import { TuiApp } from './app.js';
import { attachedBackend, localBackend, type TuiBackend } from './backend.js';
import type { Bindings } from './keys.js';

export interface TuiRun {
  workspace: string;
  options: TaskOptions;
  session: SessionFlags | undefined;
  bindings: Bindings;
}

async function sessionsOf(workspace: string): Promise<{ sessionId: string; lastPrompt: string; turns: number }[]> {
  return new SessionLedger(dataRoot()).list(projectIdFor(workspace));
}

async function open(backend: TuiBackend, run: TuiRun, canResume: boolean): Promise<ExitCode> {
  let session = run.session?.resume;
  if (run.session?.continueLatest) session = (await sessionsOf(run.workspace))[0]?.sessionId;
  const app = new TuiApp({
    backend,
    bindings: run.bindings,
    io: { input: process.stdin, output: process.stdout },
    session,
    ...(canResume ? { listSessions: () => sessionsOf(run.workspace) } : {}),
  });
  await app.exited;
  return EXIT.ok;
}

export function runTuiLocal(host: Host, run: TuiRun): Promise<ExitCode> {
  return open(localBackend(host, run.workspace, run.options), run, true);
}

export function runTuiAttached(client: ControlClient, run: TuiRun): Promise<ExitCode> {
  return open(attachedBackend(client, run.workspace, run.options), run, false);
}
