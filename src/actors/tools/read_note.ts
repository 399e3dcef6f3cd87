// read_note: one note of this task's blackboard, by ref.
import { z } from 'zod';
import { briefArg, defineTool, ok } from './define.js';
import { memoryTags } from './memory-tags.js';

const schema = z.object({ ref: z.string().min(1).describe('Note ref as shown by list_notes.') });

export default defineTool({
  name: 'read_note',
  schema,
  tags: memoryTags((a) => briefArg(a, 'ref')),
  async execute(args, ctx) {
    return ok(await ctx.store.readNote(ctx.boardId, args.ref));
  },
});
