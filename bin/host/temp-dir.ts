// A temp directory removed on every exit path: remove() on the normal path, a synchronous 'exit' listener
// for a force quit (process.exit runs only synchronous listeners). SIGKILL cannot be caught.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  path: string;
  /** Removes the directory now and forgets the exit listener; safe to call twice. */
  remove(): void;
}

export function makeTempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const removeNow = (): void => rmSync(path, { recursive: true, force: true });
  process.once('exit', removeNow);
  return {
    path,
    remove: () => {
      process.off('exit', removeNow);
      removeNow();
    },
  };
}
