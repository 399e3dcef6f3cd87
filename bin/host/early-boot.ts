// The launcher's first act (bin/yagent.js, before the CLI bundle loads): for a command that runs tasks in this
// process, the Director's worker starts booting now (~20 ms before main.ts would get to it), the store's too when the
// turn reads it first (a continued session); a new `-p` task's Director's first model request is sent from here
// (presend.ts), and then its worker starts: its boot (a core's worth of CPU for ~100 ms, ~5 ms of this thread's to
// create) would share the two cores with the request's computation; the answer waits for its claim.
import { drawsScreen, parseCommand, runsLocalTasks, type Command } from '../cli/args.js';
import { presendDirector, presendPrompt } from './presend.js';

/** Settles once the Director's first request, where it is pre-sent (presend.ts), is on the wire, or at the latest
 *  WRITE_WAIT_MS after it was handed to the transport: the CLI's bundle then loads (a synchronous ~60-100 ms a loopback
 *  connect and write would otherwise wait for; a remote handshake goes on in the CLI's first waits). */
export async function bootEarly(argv: string[]): Promise<void> {
  let cmd: Command;
  try {
    cmd = parseCommand(argv);
  } catch {
    return; // a bad command line is main.ts's to report, with its own message
  }
  const tty = { stdin: process.stdin.isTTY === true, stdout: process.stdout.isTTY === true };
  if (!runsLocalTasks(cmd, tty)) return;
  // the boot plan (and the spare's modules) load only when the worker starts: after a pre-sent request is on its way
  const prestart = async (): Promise<void> => {
    const plan = await import('./boot-plan.js');
    plan.prestartDirector(plan.readsStoreFirst(cmd), drawsScreen(cmd, tty));
  };
  if (presendPrompt(cmd) === null) return prestart();
  // not pre-sent after all (the config has MCP servers or a routing choice, or a failure): at once, as before
  const written = await presendDirector(cmd);
  if (written === null) return prestart();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([written, new Promise<void>((resolve) => (timer = setTimeout(resolve, WRITE_WAIT_MS)))]);
  clearTimeout(timer);
  await prestart();
}

/** The longest the launcher waits for the pre-sent request's connect and write (beyond computing it). */
const WRITE_WAIT_MS = 15;
