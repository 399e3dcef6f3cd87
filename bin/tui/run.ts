// `yagent` on a TTY (in-process) and `yagent --attach` (a running `yagent serve`): opens the TUI until /quit.
import { SessionLedger } from '../../src/store/sessions.js';
import { dataRoot, projectIdFor } from '../../src/store/data-paths.js';
import type { ControlClient } from '../attach/client.js';
import type { SessionFlags } from '../cli/args.js';
import { CliError, EXIT, type ExitCode } from '../cli/exit-codes.js';
import { candidatesFromEnv, probeLocal } from '../cli/probe.js';
import { withLocalHost, type SessionOptions } from '../host/session.js';
import type { TaskOptions } from '../host/types.js';
import { TuiApp, type PickerSession, type TuiOptions } from './app.js';
import { attachedBackend, localBackend, type TuiBackend } from './backend.js';
import type { Bindings } from './keys.js';

export interface TuiRun {
  workspace: string;
  options: TaskOptions;
  session: SessionFlags | undefined;
  bindings: Bindings;
  /** `yagent "fix it"`: the first turn, sent as soon as the UI is up. */
  prompt?: string;
}

async function sessionsOf(workspace: string): Promise<PickerSession[]> {
  return new SessionLedger(dataRoot()).list(projectIdFor(workspace));
}

async function open(backend: TuiBackend, run: TuiRun, canResume: boolean, setup?: TuiOptions['setup']): Promise<TuiApp> {
  let session = run.session?.resume;
  if (run.session?.continueLatest) session = (await sessionsOf(run.workspace))[0]?.sessionId;
  const app = new TuiApp({
    backend,
    bindings: run.bindings,
    io: { input: process.stdin, output: process.stdout },
    session,
    ...(canResume ? { listSessions: () => sessionsOf(run.workspace) } : {}),
    ...(setup ? { setup } : {}),
  });
  return app;
}

/** No usable provider yet: every turn is refused until /setup wrote one. */
function unconfigured(why: string): TuiBackend {
  const none = (): Promise<void> => Promise.resolve();
  return { where: 'local', start: () => Promise.reject(new Error(`${why}: /setup chooses a provider`)), cancel: none, pause: none, resume: none, pauseActor: () => Promise.resolve([]), respond: none, subscribe: () => () => undefined, tree: () => Promise.resolve(null), timeline: () => Promise.resolve([]) };
}

/** In-process: one Host per configuration; /setup ends the current one and boots the next on the new config.
 *  No usable config at the first start (fresh, placeholder key) opens the TUI in the setup dialog. */
export async function runTuiLocal(session: SessionOptions, run: TuiRun): Promise<ExitCode> {
  let release = (): void => undefined;
  let hostClosed: Promise<unknown> = Promise.resolve();
  const boot = (): Promise<TuiBackend> =>
    new Promise<TuiBackend>((resolve, reject) => {
      // the screen outranks agent compute: this process's workers run below its main thread
      hostClosed = withLocalHost({ ...session, screen: true }, (host) => {
        resolve(localBackend(host, run.workspace, run.options));
        return new Promise<void>((r) => (release = r)); // the host lives until /setup or quit releases it
      }).catch(reject);
    });
  const reconfigure = async (): Promise<TuiBackend> => {
    release();
    await hostClosed;
    return boot();
  };
  let first: TuiBackend;
  let why = '';
  try {
    first = await boot();
  } catch (err) {
    if (!(err instanceof CliError) || err.exitCode !== EXIT.config) throw err;
    why = err.message;
    first = unconfigured(why);
  }
  const app = await open(first, run, true, { configPath: session.configPath, probe: () => probeLocal(candidatesFromEnv()), reconfigure });
  if (why) app.openSetup(`${why}: choose a model provider.`);
  else if (run.prompt !== undefined) app.submit(run.prompt);
  await app.exited;
  release();
  await hostClosed;
  return EXIT.ok;
}

export async function runTuiAttached(client: ControlClient, run: TuiRun): Promise<ExitCode> {
  const app = await open(attachedBackend(client, run.workspace, run.options), run, false);
  if (run.prompt !== undefined) app.submit(run.prompt);
  await app.exited;
  return EXIT.ok;
}
