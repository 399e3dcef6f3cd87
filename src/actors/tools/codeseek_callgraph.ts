// codeseek_callgraph: the call tree of a function to a depth, downwards (callees) or upwards (callers).
import { z } from 'zod';
import { briefArg, defineTool, fail } from './define.js';
import { askCode, codeTags, DEEP_CODE_AUDIENCE, indexPath } from './code-tool.js';

const schema = z.object({
  name: z.string().min(1).describe('The function or method name at the root.'),
  depth: z.number().int().min(1).max(6).default(2).describe('Levels to follow (1-6).'),
  direction: z.enum(['callees', 'callers']).default('callees').describe('"callees": what it calls; "callers": who calls it.'),
  path: z.string().optional().describe('The file that declares the root, when several declarations share the name.'),
});

export default defineTool({
  name: 'codeseek_callgraph',
  schema,
  tags: codeTags((a) => briefArg(a, 'name'), DEEP_CODE_AUDIENCE),
  execute(args, ctx) {
    const path = args.path !== undefined ? indexPath(ctx.workspace, args.path) : undefined;
    if (path === null) return Promise.resolve(fail('outside_workspace', `${args.path ?? ''} is outside the workspace.`));
    return askCode(ctx, { op: 'callgraph', name: args.name, depth: args.depth, direction: args.direction, ...(path !== undefined ? { path } : {}) });
  },
});
