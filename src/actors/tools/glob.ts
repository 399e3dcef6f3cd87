// glob: files matching a glob pattern under a directory (tinyglobby), sorted, capped.
import { lstatSync, realpathSync } from 'node:fs';
import { glob as tinyglob, isDynamicPattern } from 'tinyglobby';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, readTags } from './define.js';
import { isInside, resolveIn } from './path-resolve.js';
import { SEARCH_MAX_RESULTS } from './limits.js';
import { walkGuard } from './walk-guard.js';

const schema = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "src/**/*.ts".'),
  path: z.string().default('.').describe('Directory to search from. Default: the workspace.'),
});

export default defineTool({
  name: 'glob',
  schema,
  tags: readTags({ pathParams: ['path'], display: 'query', brief: (a) => briefArg(a, 'pattern') }),
  async execute(args, ctx) {
    // the guard checked `path`; a pattern that climbs out of it (`../x/*`, `/etc/*`) would go around that check
    if (isAbsolute(args.pattern) || /(^|\/)\.\.(\/|$)/.test(args.pattern)) {
      return fail('pattern_escapes', `The pattern "${args.pattern}" leaves the search directory: pass the directory as path and a relative pattern.`);
    }
    const cwd = resolveIn(ctx.workspace, args.path);
    const link = linkInPattern(cwd, args.pattern);
    if (link !== null) {
      return fail('pattern_follows_link', `"${link}" is a symbolic link: glob does not follow links. Pass the directory it points to as path (reads outside the workspace are asked for).`);
    }
    const walk = walkGuard(ctx, cwd);
    const zones = walk.boundary.zonesUnder(walk.real).map((z) => `${relative(walk.real, z)}/**`);
    // symlinks are listed, never followed: a link in the workspace cannot carry the walk into a denied zone
    const found = await tinyglob(args.pattern, { cwd, dot: false, followSymbolicLinks: false, ignore: ['**/node_modules/**', '**/.git/**', ...zones] });
    const reached = unfollowed(cwd, walk.real);
    const files = found.filter((f) => isInside(cwd, join(cwd, f)) && reached(f) && !walk.skips(join(cwd, f))).sort();
    const shown = files.slice(0, SEARCH_MAX_RESULTS);
    const more = files.length > shown.length ? `\n[${files.length - shown.length} more matches not shown]` : '';
    return ok(shown.length === 0 ? 'No files matched.' : shown.join('\n') + more, `${args.pattern} (${files.length})`);
  },
});

/** The first literal segment of the pattern that is a symbolic link (the walk would start inside its target), or null. */
function linkInPattern(cwd: string, pattern: string): string | null {
  const segments = pattern.split('/');
  let at = cwd;
  for (let i = 0; i < segments.length - 1; i++) {
    const seg = segments[i] ?? '';
    if (seg === '' || seg === '.') continue;
    if (isDynamicPattern(seg)) return null;
    at = join(at, seg);
    try {
      if (lstatSync(at).isSymbolicLink()) return segments.slice(0, i + 1).join('/');
    } catch {
      return null; // nothing there: nothing to follow, and nothing will match
    }
  }
  return null;
}

/** A match's directory must be reached from the root without a link: its real path is the real root + the relative
 *  part (a link met anywhere on the way, however the pattern named it, would put it elsewhere). */
function unfollowed(cwd: string, realRoot: string): (match: string) => boolean {
  const dirs = new Map<string, boolean>();
  return (match) => {
    const rel = dirname(match);
    let ok = dirs.get(rel);
    if (ok === undefined) {
      try {
        ok = realpathSync.native(join(cwd, rel)) === join(realRoot, rel);
      } catch {
        ok = false;
      }
      dirs.set(rel, ok);
    }
    return ok;
  };
}
