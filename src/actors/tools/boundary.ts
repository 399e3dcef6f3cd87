// The read/write boundary of the tools: the workspace is free; the data root and the well-known secret stores
// are denied zones (even with -y) unless `[security] allow_read` lists them; everything else is "outside" (asked).
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { yagentHome } from '../../runtime/config/env.js';
import { isInside, realpathLoose } from './path-resolve.js';

/** What the boundary is built from: the config's allow_read and the process's HOME / data-root variables. */
export interface BoundaryPolicy {
  home: string;
  /** `~/.yagent` or YAGENT_HOME, and YAGENT_NOTES_ROOT when set: written by the store actor only. */
  dataRoots: readonly string[];
  /** `[security] allow_read`: zones listed here become ordinary outside paths for reads (asked, not denied). */
  allowRead: readonly string[];
}

/** Secret stores under HOME (credentials of ssh, aws, gpg, gcloud). */
export const SECRET_STORES: readonly string[] = ['.ssh', '.aws', '.gnupg', '.config/gcloud'];

/** File names that hold credentials wherever they are (outside the workspace): `.netrc`, `.env*`. */
export const isSecretFileName = (name: string): boolean => name === '.netrc' || name.startsWith('.env');

/** A process's environment, per process or per thread: yagent's own (the shell's parent) holds the provider keys. */
const isProcEnviron = (real: string): boolean => /^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/.test(real);

/** How a tool touches a path: `read` honours allow_read; `write` never enters a zone; `shell` is treated as read. */
export type Access = 'read' | 'write' | 'shell';

export function boundaryPolicy(env: NodeJS.ProcessEnv, allowRead: readonly string[] = [], home: string = homedir()): BoundaryPolicy {
  // ~/.yagent stays a zone when YAGENT_HOME points elsewhere: it still holds the user's usual config and keys
  const roots = [...new Set([join(home, '.yagent'), yagentHome(env, home)])];
  const notes = env['YAGENT_NOTES_ROOT'];
  if (notes !== undefined && notes !== '') roots.push(notes);
  return { home, dataRoots: roots, allowRead: allowRead.map((p) => expandTilde(p, home)) };
}

const expandTilde = (p: string, home: string): string => (p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p);

/** Every zone both as written and as its real path (a symlinked ~/.yagent is caught either way). */
function realAndLexical(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    out.add(p);
    out.add(realpathLoose(p));
  }
  return [...out];
}

/** The resolved boundary: synchronous checks on real paths, for the guard and for directory walkers. */
export class ResolvedBoundary {
  /** Zones strictly below the root: the only ones that can deny a path inside the workspace (a zone holding a
   *  path in the workspace either holds the root too, which never denies, or lies below it). */
  private readonly zonesInRoot: readonly string[];
  constructor(
    readonly root: string,
    private readonly zones: readonly string[],
    private readonly allowed: readonly string[],
  ) {
    this.zonesInRoot = zones.filter((z) => isInside(root, z) && !isInside(z, root));
  }

  inside(real: string): boolean {
    return isInside(this.root, real);
  }

  /** Why `real` is denied, or null. A zone that contains the workspace does not deny the workspace itself. */
  denied(real: string, access: Access): string | null {
    if (access !== 'write' && this.allowed.some((a) => isInside(a, real))) return null;
    if (isProcEnviron(real)) return `${real} is a process's environment (yagent's own holds its keys)`;
    const inWs = this.inside(real);
    for (const z of inWs ? this.zonesInRoot : this.zones) {
      if (isInside(z, real)) return `${real} is inside ${z} (the yagent data root or a secret store)`;
    }
    if (!inWs && isSecretFileName(basename(real))) return `${real} is a credentials file (.netrc, .env*) outside the workspace`;
    return null;
  }

  /** Every zone, as written and as its real path (run_bash's sandbox masks each one that exists). */
  zonePaths(): readonly string[] {
    return this.zones;
  }

  /** `[security] allow_read`, as written and real: readable again inside a masked zone. */
  allowedPaths(): readonly string[] {
    return this.allowed;
  }

  /** Zones strictly below `dir` (a walk from `dir` must skip them). */
  zonesUnder(dir: string): string[] {
    return this.zones.filter((z) => z !== dir && isInside(dir, z));
  }
}

/** One per agent run: the workspace root and the zones, resolved once (on first use). A path a tool names is
 *  never cached: the guard resolves it on every call, so a symlink changed between two calls is seen. */
export class Boundary {
  private resolvedB: ResolvedBoundary | null = null;
  constructor(
    readonly workspace: string,
    readonly policy: BoundaryPolicy,
  ) {}

  resolved(): ResolvedBoundary {
    if (this.resolvedB === null) {
      const zones = [...this.policy.dataRoots, ...SECRET_STORES.map((s) => join(this.policy.home, s))];
      this.resolvedB = new ResolvedBoundary(realpathLoose(this.workspace), realAndLexical(zones), realAndLexical(this.policy.allowRead));
    }
    return this.resolvedB;
  }
}

/** The boundary from this process's environment with nothing allowed (tests and clients without a config). */
export const defaultBoundary = (workspace: string): Boundary => new Boundary(workspace, boundaryPolicy(process.env));
