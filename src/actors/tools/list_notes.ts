// list_notes: the handoff notes on this task's blackboard (newest first).
import { z } from 'zod';
import { briefArg, defineTool, ok } from './define.js';
import { memoryTags } from './memory-tags.js';

const schema = z.object({
  agent: z.string().optional().describe('Only notes written by this agent.'),
  limit: z.number().int().min(1).max(100).default(20),
});

export default defineTool({
  name: 'list_notes',
  schema,
  tags: memoryTags((a) => briefArg(a, 'agent') || 'all'),
  async execute(args, ctx) {
    const opts: { agent?: string; limit?: number } = { limit: args.limit };
    if (args.agent !== undefined) opts.agent = args.agent;
    return ok(await ctx.store.listNotes(ctx.boardId, opts));
  },
});
