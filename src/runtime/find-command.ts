// The executable a command names, found as the kernel would (MCP stdio servers, the Browser agent's Chromium).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** The executable `command` names (a path, or a name looked up on `path` as the kernel would), or null. */
export function findCommand(command: string, path: string | undefined, cwd?: string): string | null {
  const runnable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (command === '') return null;
  if (command.includes('/')) {
    const p = isAbsolute(command) ? command : resolve(cwd ?? process.cwd(), command);
    return runnable(p) ? p : null;
  }
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir !== '' && runnable(join(dir, command))) return join(dir, command);
  }
  return null;
}
