// codeseek_search: declarations by name or by behaviour, from the parsed code index.
import { z } from 'zod';
import { briefArg, defineTool } from './define.js';
import { askCode, codeTags } from './code-tool.js';

const schema = z.object({
  query: z.string().min(1).describe('A symbol name (exact, prefix or part of it) or a few words of what the code does.'),
  limit: z.number().int().min(1).max(50).default(20).describe('Most results to return.'),
});

export default defineTool({
  name: 'codeseek_search',
  schema,
  tags: codeTags((a) => briefArg(a, 'query')),
  execute: (args, ctx) => askCode(ctx, { op: 'search', query: args.query, limit: args.limit }),
});
