// The bubblewrap command line for one run_bash command: the host read-only, the workspace, a private temp dir and
// the approved extra places writable, and every denied place masked (an empty read-only directory, or /dev/null
// over a file) whatever the command's words say. Mounts apply shallow to deep, so a mask always lies on top of a
// writable place that holds it, and a workspace inside a masked place still shows through.
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { dirname, join } from 'node:path';
import { isSecretFileName, type ResolvedBoundary } from './boundary.js';
import { isInside, realpathLoose } from './path-resolve.js';
import { BASE_FLAGS } from './sandbox-probe.js';

export interface SandboxPlanInput {
  /** The workspace (its real path is bound). */
  workspace: string;
  /** The shell's working directory inside. */
  cwd: string;
  /** The private temp dir of this command (TMPDIR inside). */
  tmp: string;
  /** Extra writable places: `[security] sandbox_writable` and places approved after a refused write. */
  writable: readonly string[];
  boundary: ResolvedBoundary;
  home: string;
  /** The namespace flags the probe found working. */
  flags: readonly string[];
}

type Mount = { dest: string; kind: 'bind' | 'ro-bind' | 'mask-dir' | 'mask-file' };

const kindOf = (p: string): 'dir' | 'file' | null => {
  try {
    const st = lstatSync(p, { throwIfNoEntry: false });
    return st === undefined ? null : st.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
};

const depth = (p: string): number => p.split('/').filter(Boolean).length;

/** How far the search for `.netrc` / `.env*` files outside the workspace goes below HOME, and how many directories
 *  it reads at most (once per thread and workspace: bench `tools` measures it). */
const SECRET_SCAN_DEPTH = 4;
const SECRET_SCAN_DIRS = 4000;
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', 'proc', 'sys', 'dev']);
const secretScans = new Map<string, string[]>();

/** `.netrc` and `.env*` files outside the workspace: in every directory above it, and below HOME a few levels deep
 *  (`grep -r x ~` must not find another project's `.env`); the workspace and the zones are not searched. */
export function secretFiles(workspace: string, home: string, skip: readonly string[] = []): string[] {
  const key = `${workspace}\0${home}`;
  const hit = secretScans.get(key);
  if (hit !== undefined) return hit;
  const out: string[] = [];
  const queue: { dir: string; depth: number }[] = [{ dir: home, depth: 0 }];
  for (let d = dirname(workspace); ; d = dirname(d)) {
    queue.push({ dir: d, depth: SECRET_SCAN_DEPTH });
    if (d === dirname(d)) break;
  }
  const seen = new Set<string>();
  for (let i = 0; i < queue.length && seen.size < SECRET_SCAN_DIRS; i++) {
    const { dir, depth: level } = queue[i] as { dir: string; depth: number };
    if (seen.has(dir) || dir === workspace || skip.includes(dir)) continue;
    seen.add(dir);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable for us: unreadable for the shell too
    }
    for (const e of entries) {
      if (isSecretFileName(e.name)) out.push(join(dir, e.name));
      else if (e.isDirectory() && level < SECRET_SCAN_DEPTH && !SKIP_DIRS.has(e.name)) queue.push({ dir: join(dir, e.name), depth: level + 1 });
    }
  }
  secretScans.set(key, out);
  return out;
}

/** A writable place must never open a denied one (the workspace itself excepted: it is free by definition). */
export function writableAllowed(real: string, b: ResolvedBoundary): boolean {
  return real !== '/' && b.denied(real, 'write') === null;
}

export function bwrapArgs(o: SandboxPlanInput, argv: readonly string[]): string[] {
  const ws = realpathLoose(o.workspace);
  const mounts: Mount[] = [];
  const binds = new Set([ws, realpathLoose(o.tmp)]);
  for (const w of o.writable) {
    const real = realpathLoose(w);
    if (kindOf(real) !== null && writableAllowed(real, o.boundary)) binds.add(real);
  }
  for (const dest of binds) mounts.push({ dest, kind: 'bind' });
  const masked = new Set<string>();
  for (const zone of o.boundary.zonePaths()) {
    const real = realpathLoose(zone);
    const kind = kindOf(real);
    // a zone that holds the workspace is masked, the workspace then bound on top (only the workspace shows)
    if (kind !== null && !masked.has(real) && o.boundary.denied(real, 'read') !== null) mounts.push({ dest: real, kind: kind === 'dir' ? 'mask-dir' : 'mask-file' });
    masked.add(real);
  }
  for (const f of secretFiles(ws, o.home, o.boundary.zonePaths())) {
    const real = realpathLoose(f);
    if (isInside(ws, real) || masked.has(real) || o.boundary.denied(real, 'read') === null) continue;
    masked.add(real);
    const kind = kindOf(real);
    if (kind !== null) mounts.push({ dest: real, kind: kind === 'dir' ? 'mask-dir' : 'mask-file' });
  }
  const isMask = (m: Mount): boolean => m.kind === 'mask-dir' || m.kind === 'mask-file';
  // a mask inside another mask needs no mount of its own (and could not get one: its parent is read-only)
  const kept = mounts.filter((m) => !isMask(m) || !mounts.some((o2) => o2 !== m && isMask(o2) && o2.dest !== m.dest && isInside(o2.dest, m.dest)));
  // `[security] allow_read` inside a masked zone: read-only again, as the read tools may read it after asking
  for (const a of o.boundary.allowedPaths()) {
    const real = realpathLoose(a);
    if (kindOf(real) !== null && kept.some((m) => isMask(m) && m.dest !== real && isInside(m.dest, real))) kept.push({ dest: real, kind: 'ro-bind' });
  }
  kept.sort((a, b) => depth(a.dest) - depth(b.dest) || Number(isMask(a)) - Number(isMask(b)));
  const args = [...BASE_FLAGS];
  for (const m of kept) {
    if (m.kind === 'bind') args.push('--bind', m.dest, m.dest);
    else if (m.kind === 'ro-bind') args.push('--ro-bind', m.dest, m.dest);
    else if (m.kind === 'mask-dir') args.push('--tmpfs', m.dest);
    else args.push('--ro-bind', '/dev/null', m.dest);
  }
  // read-only only now: deeper binds needed their mount points made inside these empty directories first
  for (const m of kept) if (m.kind === 'mask-dir') args.push('--remount-ro', m.dest);
  args.push(...o.flags, '--chdir', realpathLoose(o.cwd), '--', ...argv);
  return args;
}
