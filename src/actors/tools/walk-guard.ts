// What a directory walk (grep, glob) must skip: denied zones below its root and, outside the workspace,
// credentials files. The root itself was already checked by the guard.
import { join, relative } from 'node:path';
import { defaultBoundary, type ResolvedBoundary } from './boundary.js';
import { realpathLoose } from './path-resolve.js';
import type { ToolContext } from './types.js';

export interface WalkGuard {
  /** The root's real path. */
  real: string;
  /** True when a plain walk (ripgrep) could meet something to skip: use a walk that asks `skips` per path. */
  careful: boolean;
  /** For a path under the (lexical) root, reached without following symlinks: must the walk skip it? */
  skips(path: string): boolean;
  boundary: ResolvedBoundary;
}

export function walkGuard(ctx: Pick<ToolContext, 'workspace' | 'boundary'>, root: string): WalkGuard {
  const boundary = (ctx.boundary ?? defaultBoundary(ctx.workspace)).resolved();
  const real = realpathLoose(root);
  const careful = !boundary.inside(real) || boundary.zonesUnder(real).length > 0;
  // below the root nothing is followed, so the real path is the real root + the relative part
  const skips = (path: string): boolean => boundary.denied(join(real, relative(root, path)), 'read') !== null;
  return { real, careful, skips, boundary };
}
