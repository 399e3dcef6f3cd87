// create_file: writes a new file (parents created); refuses to overwrite unless asked to.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, writeTags } from './define.js';
import { resolveIn } from './path-resolve.js';
import { EDIT_LIMIT_BYTES } from './limits.js';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace or absolute.'),
  content: z.string().describe('Full content of the new file.'),
  overwrite: z.boolean().default(false).describe('Replace an existing file. Prefer edit_file for changes.'),
});

export default defineTool({
  name: 'create_file',
  schema,
  tags: writeTags({ pathParams: ['path'], brief: (a) => briefArg(a, 'path') }),
  async execute(args, ctx) {
    if (Buffer.byteLength(args.content) > EDIT_LIMIT_BYTES) return fail('too_large', 'content is over the 10 MB limit.');
    const file = resolveIn(ctx.workspace, args.path);
    const st = await stat(file).catch(() => null); // a probe: no file is an answer, not a failure
    if (st?.isDirectory()) return fail('is_directory', `"${args.path}" is a directory.`);
    if (st && !args.overwrite) return fail('exists', `"${args.path}" already exists: use edit_file, or overwrite=true.`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, args.content, { signal: ctx.signal });
    const lines = args.content === '' ? 0 : args.content.split('\n').length;
    return ok(`${st ? 'Overwrote' : 'Created'} ${args.path} (${lines} lines).`, args.path);
  },
});
