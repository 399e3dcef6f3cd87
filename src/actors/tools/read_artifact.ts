// read_artifact: a window of a stored artifact (long tool output, deliverables) by id.
import { z } from 'zod';
import { briefArg, defineTool, ok } from './define.js';
import { memoryTags } from './memory-tags.js';

const schema = z.object({
  id: z.string().min(1).describe('Artifact id.'),
  offset: z.number().int().min(0).default(0).describe('Character offset to start at.'),
  limit: z.number().int().min(1).max(40_000).default(20_000),
});

export default defineTool({
  name: 'read_artifact',
  schema,
  tags: memoryTags((a) => briefArg(a, 'id')),
  async execute(args, ctx) {
    return ok(await ctx.store.readArtifact(args.id, { offset: args.offset, limit: args.limit }));
  },
});
