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
