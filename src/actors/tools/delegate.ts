// The shape shared by every delegate_<agent> tool: task + context_refs, executed by ctx.delegate.
import { z } from 'zod';
import type { CapabilityTags, DelegateTarget, ToolDeclaration } from './types.js';
import { briefArg, defineTool } from './define.js';

const schema = z.object({
  task: z.string().min(1).describe('What to do, with the goal and what "done" means.'),
  context_refs: z.array(z.string()).default([]).describe('Note refs, artifact ids or file paths the sub-agent should read first.'),
});

/** `mutates`: the sub-agent can change the workspace; it runs beside others only as an isolated writer (own worktree). */
export function delegationTool(target: DelegateTarget, audience: readonly string[], mutates: boolean): ToolDeclaration<typeof schema> {
  const tags: CapabilityTags = {
    effect: 'delegate',
    mutates,
    serial: false,
    ...(mutates ? { isolatedWriter: true } : {}),
    needsAuth: false,
    pathParams: [],
    truncation: 'head_tail',
    display: 'text',
    audience,
    target,
    brief: (a) => briefArg(a, 'task'),
  };
  return defineTool({ name: `delegate_${target}`, schema, tags, execute: (args, ctx) => ctx.delegate(target, args, { callId: ctx.callId, signal: ctx.signal }) });
}
