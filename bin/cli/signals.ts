// SIGINT handling for clients: the first Ctrl-C drains gracefully, the second (or -Q) quits at once.
import { EXIT } from './exit-codes.js';

export function onInterrupt(forceQuit: boolean, graceful: () => void): () => void {
  let count = 0;
  const handler = (): void => {
    count += 1;
    if (forceQuit || count > 1) {
      process.stderr.write('yagent: quitting now\n');
      process.exit(EXIT.cancelled);
    }
    graceful();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
