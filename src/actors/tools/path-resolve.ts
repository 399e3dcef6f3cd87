// Path resolution against the workspace: `..`, absolute paths, `~` and symlinks (dangling ones too) all resolve
// to the real location a tool would touch. Synchronous on purpose: tools run one agent per worker (a blocked
// worker blocks nobody else), and realpath(3) is a few µs where a libuv-pool round trip is 20–50 µs (bench `tools`).
// `realpathSync.native` is the same libc realpath(3) that `fs.promises.realpath` runs on the pool.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

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
 * Resolved afresh on every call: nothing about a path is cached (the disk may change between calls).
 */
export function realpathLoose(p: string, hops = 0): string {
  const tail: string[] = [];
  let cur = resolve(p);
  for (;;) {
    let real: string | undefined;
    try {
      real = realpathSync.native(cur);
    } catch {
      real = undefined;
    }
    if (real !== undefined) return tail.length === 0 ? real : join(real, ...tail.reverse());
    const target = hops < MAX_LINK_HOPS ? danglingTarget(cur) : null;
    if (target !== null) return realpathLoose(join(target, ...tail.reverse()), hops + 1);
    const up = dirname(cur);
    if (up === cur) return resolve(p);
    tail.push(basename(cur));
    cur = up;
  }
}

/** Where a symlink at `p` points (absolute), or null when `p` is not a symlink. */
function danglingTarget(p: string): string | null {
  try {
    if (!lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink()) return null;
    return resolve(dirname(p), readlinkSync(p));
  } catch {
    return null;
  }
}

/**
 * Where the kernel lands for a path as a shell passes it: `..` is taken after the symlink before it
 * (`link/..` is the link target's parent), unlike `path.resolve`, which drops `link/..` first.
 */
export function realpathPhysical(p: string, cwd: string, realCwd?: string): string {
  // `realCwd`: the cwd already resolved (the guard's workspace root, resolved once per run like the zones)
  let cur = isAbsolute(p) ? '/' : (realCwd ?? realpathLoose(cwd));
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    cur = seg === '..' ? dirname(cur) : realpathLoose(join(cur, seg));
  }
  return cur;
}

/** The real path a `file:` URL names (the guard and the browser judge it like a path), or null for any other value. */
export function fileUrlPath(v: unknown): string | null {
  if (typeof v !== 'string' || !/^file:/i.test(v.trim())) return null;
  try {
    return realpathLoose(fileURLToPath(v.trim()));
  } catch {
    return null; // file://host/…, a malformed escape: no local path
  }
}

/** True for an absolute path with no empty, `.` or `..` segment (a trailing `/` is fine): what realpath, `join` and
 *  `resolve` return. For two such paths containment is a string-prefix question (no `path.relative`, which resolves
 *  both sides again: it was a third of the guard's time for 10 zones per call). */
export function isNormalAbsolute(p: string): boolean {
  if (p.charCodeAt(0) !== SLASH || p.includes('//')) return false;
  for (let i = p.indexOf('/.'); i !== -1; i = p.indexOf('/.', i + 1)) {
    const a = p.charCodeAt(i + 2);
    if (Number.isNaN(a) || a === SLASH) return false; // `/.` segment
    if (a === DOT) {
      const b = p.charCodeAt(i + 3);
      if (Number.isNaN(b) || b === SLASH) return false; // `/..` segment
    }
  }
  return true;
}

const SLASH = 47;
const DOT = 46;

export function isInside(root: string, p: string): boolean {
  if (sep === '/' && isNormalAbsolute(root) && isNormalAbsolute(p)) {
    const prefix = root.endsWith('/') ? root : `${root}/`;
    return p === root || p.startsWith(prefix) || `${p}/` === prefix;
  }
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
