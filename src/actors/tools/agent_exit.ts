// agent_exit: ends a sub-agent with its handoff; `conclusion` is the full deliverable (the note body), never a summary.
import { z } from 'zod';
import { ModelHandoffStatusSchema } from '../../runtime/protocol/index.js';
import { briefArg, defineTool } from './define.js';

export const SUB_AGENTS: readonly string[] = ['coding', 'repo', 'chat', 'devops', 'browser', 'custom'];

const schema = z.object({
  conclusion: z.string().min(1).describe('Your full deliverable, self-contained; stored in full as your note (not a summary).'),
  status: ModelHandoffStatusSchema.describe('ok: done; partial: some of it; error: could not do it.'),
  facts: z.array(z.string()).default([]).describe('Verified facts the caller can rely on.'),
  artifacts: z.array(z.string()).default([]).describe('Files created or changed, artifact ids.'),
  blueprint: z.array(z.string().min(1)).max(40).default([]).describe('Repo agent only: durable facts about the repository (what a module is for, where a concern lives, a rule of the code), one per item; paths you name must exist. Kept in the repository blueprint for later runs.'),
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
    const { conclusion, status, facts, artifacts, blueprint } = args;
    // one field carries the deliverable, so the note body and what the model closed on cannot disagree
    return Promise.resolve({ kind: 'exit', handoff: { conclusion, status, facts, artifacts, ...(blueprint.length > 0 ? { blueprint } : {}) } });
  },
});
