// list_dir: the entries of one directory, directories marked with a trailing slash.
import { readdir } from 'node:fs/promises';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, readTags } from './define.js';
import { resolveIn } from './path-resolve.js';
import { LIST_MAX_ENTRIES } from './limits.js';

const schema = z.object({
  path: z.string().default('.').describe('Directory, relative to the workspace or absolute. Default: the workspace.'),
});

export default defineTool({
  name: 'list_dir',
  schema,
  tags: readTags({ pathParams: ['path'], brief: (a) => briefArg(a, 'path') || '.' }),
  async execute(args, ctx) {
    const dir = resolveIn(ctx.workspace, args.path);
    const entries = await readdir(dir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => e);
    if (entries instanceof Error) {
      return entries.code === 'ENOTDIR'
        ? fail('not_a_directory', `"${args.path}" is a file: use read_file.`)
        : fail('not_found', `Cannot list "${args.path}": ${entries.code ?? entries.message}.`);
    }
    const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    const shown = names.slice(0, LIST_MAX_ENTRIES);
    const more = names.length > shown.length ? `\n[${names.length - shown.length} more entries not shown]` : '';
    return ok(shown.length === 0 ? '(empty directory)' : shown.join('\n') + more, `${args.path} (${names.length})`);
  },
});
