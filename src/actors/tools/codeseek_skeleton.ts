// codeseek_skeleton: a file's declarations with signatures and line ranges, nested, without the bodies.
import { z } from 'zod';
import { defineTool, fail } from './define.js';
import { askCode, codeTags, indexPath } from './code-tool.js';

const schema = z.object({
  paths: z.array(z.string().min(1)).min(1).max(20).describe('Files, relative to the workspace.'),
});

export default defineTool({
  name: 'codeseek_skeleton',
  schema,
  tags: codeTags((a) => (Array.isArray(a.paths) ? a.paths.slice(0, 3).join(', ') : '')),
  execute(args, ctx) {
    const paths = args.paths.map((p) => indexPath(ctx.workspace, p));
    const outside = args.paths.filter((_, i) => paths[i] === null);
    if (outside.length > 0) return Promise.resolve(fail('outside_workspace', `Outside the workspace: ${outside.join(', ')}.`));
    return askCode(ctx, { op: 'skeleton', paths: paths as string[] });
  },
});
