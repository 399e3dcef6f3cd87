// The launcher's first act (bin/yagent.js, before the CLI bundle loads): for a command that runs tasks in this
// process, the Director's worker starts booting now (~20 ms before main.ts would get to it), the store's too when the
// turn reads it first (a continued session).
import { drawsScreen, parseCommand, runsLocalTasks, type Command } from '../cli/args.js';
import { prestartDirector, readsStoreFirst } from './boot-plan.js';

export function bootEarly(argv: string[]): void {
  let cmd: Command;
  try {
    cmd = parseCommand(argv);
  } catch {
    return; // a bad command line is main.ts's to report, with its own message
  }
  const tty = { stdin: process.stdin.isTTY === true, stdout: process.stdout.isTTY === true };
  if (runsLocalTasks(cmd, tty)) prestartDirector(readsStoreFirst(cmd), drawsScreen(cmd, tty));
}
