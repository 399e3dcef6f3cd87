// codeseek_callees: the names a function calls, each with where it is declared.
import { z } from 'zod';
import { briefArg, defineTool, fail } from './define.js';
import { askCode, codeTags, DEEP_CODE_AUDIENCE, indexPath } from './code-tool.js';

const schema = z.object({
  name: z.string().min(1).describe('The function or method name, e.g. "parseConfig".'),
  path: z.string().optional().describe('The file that declares it, when several declarations share the name.'),
});

export default defineTool({
  name: 'codeseek_callees',
  schema,
  tags: codeTags((a) => briefArg(a, 'name'), DEEP_CODE_AUDIENCE),
  execute(args, ctx) {
    const path = args.path !== undefined ? indexPath(ctx.workspace, args.path) : undefined;
    if (path === null) return Promise.resolve(fail('outside_workspace', `${args.path ?? ''} is outside the workspace.`));
    return askCode(ctx, { op: 'callees', name: args.name, ...(path !== undefined ? { path } : {}) });
  },
});
