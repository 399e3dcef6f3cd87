// read_blueprint: the repository blueprint: its derived layer (modules, import edges, entry points, manifests) and
// the prose earlier Repo runs kept (marked stale when the structure changed since).
import { z } from 'zod';
import { defineTool, fail, ok, readTags } from './define.js';

export default defineTool({
  name: 'read_blueprint',
  schema: z.object({}),
  tags: readTags({ brief: () => 'blueprint', display: 'query' }),
  async execute(_args, ctx) {
    if (!ctx.blueprint) return fail('blueprint_unavailable', 'The blueprint is not available in this run.');
    return ok(await ctx.blueprint.read());
  },
});
