// Path resolution against the workspace: `..`, absolute paths, `~` and symlinks all resolve to real locations.
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Resolves a model-supplied path against the workspace (no symlink resolution). */
export function resolveIn(workspace: string, p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? resolve(p) : resolve(workspace, p);
}

/** Real location of a path that may not exist yet: realpath of its longest existing ancestor + the rest. */
export async function realpathLoose(p: string): Promise<string> {
  const tail: string[] = [];
  let cur = resolve(p);
  for (;;) {
    try {
      const real = await realpath(cur);
      return tail.length === 0 ? real : join(real, ...tail.reverse());
    } catch {
      const up = dirname(cur);
      if (up === cur) return resolve(p);
      tail.push(basename(cur));
      cur = up;
    }
  }
}

export function isInside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
