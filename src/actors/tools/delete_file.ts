// delete_file: removes one file (never a directory tree).
import { stat, unlink } from 'node:fs/promises';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, writeTags } from './define.js';
import { resolveIn } from './path-resolve.js';

const schema = z.object({ path: z.string().min(1).describe('File to delete.') });

export default defineTool({
  name: 'delete_file',
  schema,
  tags: writeTags({ pathParams: ['path'], truncation: 'none', brief: (a) => briefArg(a, 'path') }),
  async execute(args, ctx) {
    const file = resolveIn(ctx.workspace, args.path);
    const st = await stat(file).catch(() => null); // a probe: no file is an answer, not a failure
    if (!st) return fail('not_found', `No file at "${args.path}".`);
    if (st.isDirectory()) return fail('is_directory', `"${args.path}" is a directory; delete_file removes files only.`);
    await unlink(file);
    return ok(`Deleted ${args.path}.`, args.path);
  },
});
