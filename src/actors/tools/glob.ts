// glob: files matching a glob pattern under a directory (tinyglobby), sorted, capped.
import { glob as tinyglob } from 'tinyglobby';
import { isAbsolute, join, relative } from 'node:path';
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
    const walk = walkGuard(ctx, cwd);
    const zones = walk.boundary.zonesUnder(walk.real).map((z) => `${relative(walk.real, z)}/**`);
    // symlinks are listed, never followed: a link in the workspace cannot carry the walk into a denied zone
    const found = await tinyglob(args.pattern, { cwd, dot: false, followSymbolicLinks: false, ignore: ['**/node_modules/**', '**/.git/**', ...zones] });
    const files = found.filter((f) => isInside(cwd, join(cwd, f)) && !walk.skips(join(cwd, f))).sort();
    const shown = files.slice(0, SEARCH_MAX_RESULTS);
    const more = files.length > shown.length ? `\n[${files.length - shown.length} more matches not shown]` : '';
    return ok(shown.length === 0 ? 'No files matched.' : shown.join('\n') + more, `${args.pattern} (${files.length})`);
  },
});
