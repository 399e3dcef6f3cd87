// undo_delegation: puts the files a delegation changed back as they were before it (the store's undo points).
import { z } from 'zod';
import { briefArg, defineTool, fail, ok } from './define.js';

const schema = z.object({
  id: z.string().min(1).optional().describe("The tool call id of the delegation (or an undo point id) to undo; omit it for this task's most recent delegation."),
  dry_run: z.boolean().default(false).describe('Only show what would change (the diff); nothing is written.'),
});

export default defineTool({
  name: 'undo_delegation',
  schema,
  tags: {
    effect: 'control',
    mutates: true,
    serial: true,
    needsAuth: false,
    pathParams: [],
    truncation: 'head',
    display: 'text',
    brief: (a) => briefArg(a, 'id') || 'last delegation',
    audience: ['director'],
    approval: { key: 'undo_delegation', text: 'undo_delegation restores workspace files to their state before an earlier delegation', projectGrant: true },
  },
  async execute(args, ctx) {
    if (ctx.store.undo === undefined) return fail('undo_unavailable', 'This run has no undo store; nothing was changed.');
    const r = await ctx.store.undo(ctx.workspace, ctx.taskId, args.id, args.dry_run);
    return r.ok ? ok(r.text) : fail('undo_refused', r.text);
  },
});
