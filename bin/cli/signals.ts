// SIGINT handling for clients: the first Ctrl-C drains gracefully, the second (or -Q) quits at once.
// SIGHUP (the terminal went away) quits at once too: nobody is left to watch a drain.
// Quitting runs process.on('exit') hooks (bin/main.ts kills the process groups still registered).
import { EXIT } from './exit-codes.js';

export function onInterrupt(forceQuit: boolean, graceful: () => void): () => void {
  let count = 0;
  const quit = (): void => {
    process.stderr.write('yagent: quitting now\n');
    process.exit(EXIT.cancelled);
  };
  const handler = (): void => {
    count += 1;
    if (forceQuit || count > 1) quit();
    graceful();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  process.on('SIGHUP', quit);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
    process.off('SIGHUP', quit);
  };
}

const QUIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Installed once by main.ts: a signal that arrives while no client handles it (start-up, or shutdown after a run's
 *  handler is gone) quits through process.exit, so the exit hooks still kill process groups and remove temp
 *  dirs; the default action would end the process without running them. Silent while a client's handler is on. */
export function quitOnUnhandledSignals(): void {
  for (const sig of QUIT_SIGNALS) {
    process.on(sig, () => {
      if (process.listenerCount(sig) === 1) process.exit(EXIT.cancelled);
    });
  }
}
