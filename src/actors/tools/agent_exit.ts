// agent_exit: ends a sub-agent with its handoff (conclusion, facts, artifacts, status ok|partial|error).
import { z } from 'zod';
import { ModelHandoffStatusSchema } from '../../runtime/protocol/index.js';
import { briefArg, defineTool } from './define.js';

export const SUB_AGENTS: readonly string[] = ['coding', 'repo', 'chat', 'devops', 'custom'];

const schema = z.object({
  conclusion: z.string().min(1).describe('The answer to the task in a few sentences.'),
  status: ModelHandoffStatusSchema.describe('ok: done; partial: some of it; error: could not do it.'),
  facts: z.array(z.string()).default([]).describe('Verified facts the caller can rely on.'),
  artifacts: z.array(z.string()).default([]).describe('Files created or changed, artifact ids.'),
  deliverable: z.string().optional().describe('The full deliverable when it is longer than the conclusion.'),
});

export default defineTool({
  name: 'agent_exit',
  schema,
  tags: {
    effect: 'control',
    mutates: false,
    serial: true,
    needsAuth: false,
    pathParams: [],
    truncation: 'none',
    display: 'text',
    audience: SUB_AGENTS,
    brief: (a) => briefArg(a, 'status'),
  },
  execute(args) {
    const { conclusion, status, facts, artifacts, deliverable } = args;
    return Promise.resolve({ kind: 'exit', handoff: deliverable === undefined ? { conclusion, status, facts, artifacts } : { conclusion, status, facts, artifacts, deliverable } });
  },
});
