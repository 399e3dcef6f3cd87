// load_tool: fetches the schema of a deferred ("cold") tool from the catalogue so it can be called.
import { z } from 'zod';
import { briefArg, defineTool, fail, ok } from './define.js';

const schema = z.object({ name: z.string().min(1).describe('Tool name from the deferred-tools catalogue.') });

export default defineTool({
  name: 'load_tool',
  schema,
  tags: {
    effect: 'control',
    mutates: false,
    serial: false,
    needsAuth: false,
    pathParams: [],
    truncation: 'none',
    display: 'text',
    brief: (a) => briefArg(a, 'name'),
  },
  execute(args, ctx) {
    const text = ctx.loadTool(args.name);
    return Promise.resolve(text === null ? fail('unknown_tool', `"${args.name}" is not in the deferred-tools catalogue.`) : ok(text));
  },
});
