// rename_file: moves a file or directory; never replaces an existing destination.
import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, writeTags } from './define.js';
import { resolveIn } from './path-resolve.js';

const schema = z.object({
  from: z.string().min(1).describe('Current path.'),
  to: z.string().min(1).describe('New path (must not exist).'),
});

export default defineTool({
  name: 'rename_file',
  schema,
  tags: writeTags({ pathParams: ['from', 'to'], truncation: 'none', brief: (a) => `${briefArg(a, 'from', 40)} → ${briefArg(a, 'to', 40)}` }),
  async execute(args, ctx) {
    const from = resolveIn(ctx.workspace, args.from);
    const to = resolveIn(ctx.workspace, args.to);
    // probes: each answer is a result the model reads
    if (!(await stat(from).catch(() => null))) return fail('not_found', `No file at "${args.from}".`);
    if (await stat(to).catch(() => null)) return fail('exists', `"${args.to}" already exists; choose another name or delete it first.`);
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
    return ok(`Renamed ${args.from} → ${args.to}.`, `${args.from} → ${args.to}`);
  },
});
