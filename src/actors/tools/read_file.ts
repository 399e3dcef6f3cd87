// read_file: a line range of a text file (≤ 1000 lines per call; 10 MB hard limit, 2 MB soft warning).
import { z } from 'zod';
import { briefArg, defineTool, fail, ok, readTags } from './define.js';
import { resolveIn } from './path-resolve.js';
import { READ_HARD_LIMIT_BYTES, READ_MAX_LINES, READ_SOFT_WARN_BYTES, SYNC_READ_MAX_BYTES } from './limits.js';
import { readRegularFile } from './regular-file.js';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace or absolute.'),
  start_line: z.number().int().min(1).optional().describe('First line to return (1-based). Default 1.'),
  end_line: z.number().int().min(1).optional().describe(`Last line to return (inclusive). At most ${READ_MAX_LINES} lines per call.`),
});

export default defineTool({
  name: 'read_file',
  schema,
  tags: readTags({ pathParams: ['path'], brief: (a) => briefArg(a, 'path') }),
  async execute(args, ctx) {
    const file = resolveIn(ctx.workspace, args.path);
    // one agent per worker: a small synchronous read blocks nobody else; big files stay cancellable
    const r = await readRegularFile(file, { maxBytes: READ_HARD_LIMIT_BYTES, syncMaxBytes: SYNC_READ_MAX_BYTES, signal: ctx.signal });
    if (r.kind === 'not_found') return fail('not_found', `No file at "${args.path}".`);
    if (r.kind === 'directory') return fail('is_directory', `"${args.path}" is a directory: use list_dir.`);
    if (r.kind === 'not_regular') return fail('not_a_file', `"${args.path}" is ${r.what}: read_file reads regular files only.`);
    if (r.kind === 'too_large') {
      return fail('too_large', `"${args.path}" is ${r.size} bytes or more, over the 10 MB limit: use grep to find the part you need.`);
    }
    if (r.kind !== 'ok') return fail('not_a_file', `"${args.path}" is not a file read_file can read.`);
    const { buf, size } = r;
    if (buf.subarray(0, 8192).includes(0)) return fail('binary_file', `"${args.path}" looks binary; not shown.`);
    const lines = buf.toString('utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const start = args.start_line ?? 1;
    if (start > Math.max(lines.length, 1)) return fail('out_of_range', `start_line ${start} is past the end (${lines.length} lines).`);
    const end = Math.min(args.end_line ?? start + READ_MAX_LINES - 1, start + READ_MAX_LINES - 1, lines.length);
    if (end < start) return fail('out_of_range', `end_line ${end} is before start_line ${start}.`);
    const body = lines
      .slice(start - 1, end)
      .map((l, i) => `${start + i}\t${l}`)
      .join('\n');
    const notes: string[] = [];
    if (size > READ_SOFT_WARN_BYTES) notes.push(`[warning: large file (${size} bytes); read only the ranges you need]`);
    if (end < lines.length) notes.push(`[lines ${start}-${end} of ${lines.length}; continue with start_line=${end + 1}]`);
    return ok([body, ...notes].join('\n'), `${args.path}:${start}-${end}`);
  },
});
