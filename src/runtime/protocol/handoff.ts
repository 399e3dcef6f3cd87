// Handoff front-matter of a blackboard note; status has no `paused` on purpose (blackboard rule 3).
import { z } from 'zod';

export const HandoffStatusSchema = z.enum(['ok', 'partial', 'error', 'degraded']);
export type HandoffStatus = z.infer<typeof HandoffStatusSchema>;

/** The statuses a model may report through agent_exit; `degraded` is decided by the replay side only. */
export const ModelHandoffStatusSchema = z.enum(['ok', 'partial', 'error']);

export const HandoffSchema = z.object({
  version: z.literal(2).default(2),
  agent: z.string(),
  status: HandoffStatusSchema,
  conclusion: z.string(),
  facts: z.array(z.string()).default([]),
  artifacts: z.array(z.string()).default([]),
  delegationId: z.string().optional(),
  taskId: z.string().optional(),
  triggeredBy: z.string().optional(),
  mentions: z.array(z.string()).default([]),
  /** Why this handoff could not be read as written: absent | v1 | malformed. */
  degraded: z.string().optional(),
});
export type Handoff = z.infer<typeof HandoffSchema>;
