// The launcher's first act (bin/yagent.js, before the CLI bundle loads): for a command that runs tasks in this
// process, the Director's worker starts booting now (~20 ms before main.ts would get to it), the store's too when the
// turn reads it first (a continued session); a new `-p` task's Director's first model request is sent from here
// (presend.ts).
import { parseCommand, runsLocalTasks, type Command } from '../cli/args.js';
import { prestartDirector, readsStoreFirst } from './boot-plan.js';
import { presendDirector, presendPrompt } from './presend.js';

/** Settles once the Director's first request, where it is pre-sent (presend.ts), is on the wire: the CLI's bundle
 *  then loads (a synchronous ~100 ms the socket's connect and write would otherwise wait for). */
export async function bootEarly(argv: string[]): Promise<void> {
  let cmd: Command;
  try {
    cmd = parseCommand(argv);
  } catch {
    return; // a bad command line is main.ts's to report, with its own message
  }
  if (!runsLocalTasks(cmd, { stdin: process.stdin.isTTY === true, stdout: process.stdout.isTTY === true })) return;
  prestartDirector(readsStoreFirst(cmd));
  if (presendPrompt(cmd) === null) return;
  // one turn of the event loop after it was handed to the transport: a loopback connect completes and the request
  // is written; a remote one goes on while the CLI loads
  if (await presendDirector(cmd)) await new Promise<void>((resolve) => setImmediate(resolve));
}
