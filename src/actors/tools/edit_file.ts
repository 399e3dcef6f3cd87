// edit_file: exact search/replace in one file (10 MB both ways); the result is a unified diff.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, writeTags } from './define.js';
import { resolveIn } from './path-resolve.js';
import { EDIT_LIMIT_BYTES } from './limits.js';

const schema = z.object({
  path: z.string().min(1).describe('File to edit.'),
  old_string: z.string().min(1).describe('Exact text to find (whitespace matters).'),
  new_string: z.string().describe('Replacement text.'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence instead of exactly one.'),
});

function countOccurrences(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

export default defineTool({
  name: 'edit_file',
  schema,
  tags: writeTags({ pathParams: ['path'], brief: (a) => briefArg(a, 'path') }),
  async execute(args, ctx) {
    const file = resolveIn(ctx.workspace, args.path);
    const st = await stat(file).catch(() => null); // a probe: no file is an answer, not a failure
    if (!st || !st.isFile()) return fail('not_found', `No file at "${args.path}": use create_file for new files.`);
    if (st.size > EDIT_LIMIT_BYTES) return fail('too_large', `"${args.path}" is over the 10 MB edit limit.`);
    const before = await readFile(file, { encoding: 'utf8', signal: ctx.signal });
    const count = countOccurrences(before, args.old_string);
    if (count === 0) return fail('no_match', `old_string was not found in "${args.path}": read the file and copy the text exactly.`);
    if (count > 1 && !args.replace_all) {
      return fail('ambiguous', `old_string occurs ${count} times in "${args.path}": add surrounding lines to make it unique, or set replace_all=true.`);
    }
    // split/join, not String.replace: `$&`-style patterns in new_string must stay literal
    const after = args.replace_all
      ? before.split(args.old_string).join(args.new_string)
      : before.replace(args.old_string, () => args.new_string);
    if (Buffer.byteLength(after) > EDIT_LIMIT_BYTES) return fail('too_large', 'the edited file would exceed the 10 MB limit.');
    await writeFile(file, after, { signal: ctx.signal });
    // loaded on the first edit: agents that never edit (the Director) start without diff's 17 modules
    const { createPatch } = await import('diff');
    const patch = createPatch(args.path, before, after, '', '');
    return ok(patch.split('\n').slice(2).join('\n'), `${args.path} (${args.replace_all ? count : 1} replaced)`);
  },
});
