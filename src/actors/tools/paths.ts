// Path resolution against the workspace: `..`, absolute paths, `~` and symlinks (dangling ones too) all resolve
// to the real location a tool would touch.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Resolves a model-supplied path against the workspace (no symlink resolution). */
export function resolveIn(workspace: string, p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? resolve(p) : resolve(workspace, p);
}

/** Linux's own bound on symlinks followed while resolving one path (ELOOP beyond it). */
const MAX_LINK_HOPS = 40;

/**
 * Real location of a path that may not exist yet: realpath of its nearest existing ancestor + the rest.
 * A dangling symlink on the way is followed to its target (a write through it lands there), so
 * `ws/link -> ../outside/new.txt` resolves outside. A link loop resolves to the loop's own location.
 */
export async function realpathLoose(p: string, hops = 0): Promise<string> {
  const tail: string[] = [];
  let cur = resolve(p);
  for (;;) {
    try {
      const real = await realpath(cur);
      return tail.length === 0 ? real : join(real, ...tail.reverse());
    } catch {
      const target = hops < MAX_LINK_HOPS ? await danglingTarget(cur) : null;
      if (target !== null) return realpathLoose(join(target, ...tail.reverse()), hops + 1);
      const up = dirname(cur);
      if (up === cur) return resolve(p);
      tail.push(basename(cur));
      cur = up;
    }
  }
}

/** Where a symlink at `p` points (absolute), or null when `p` is not a symlink. */
async function danglingTarget(p: string): Promise<string | null> {
  try {
    if (!(await lstat(p)).isSymbolicLink()) return null;
    return resolve(dirname(p), await readlink(p));
  } catch {
    return null;
  }
}

/**
 * Where the kernel lands for a path as a shell passes it: `..` is taken after the symlink before it
 * (`link/..` is the link target's parent), unlike `path.resolve`, which drops `link/..` first.
 */
export async function realpathPhysical(p: string, cwd: string): Promise<string> {
  let cur = isAbsolute(p) ? '/' : await realpathLoose(cwd);
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    cur = seg === '..' ? dirname(cur) : await realpathLoose(join(cur, seg));
  }
  return cur;
}

export function isInside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
