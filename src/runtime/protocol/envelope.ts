// The dispatcher envelope: seq stamped at publish, delegationId bound once per actor.
import { z } from 'zod';
import { EventSchema } from './events.js';

export const LaneSchema = z.enum(['critical', 'normal']);
export type Lane = z.infer<typeof LaneSchema>;

export const EnvelopeSchema = z.object({
  seq: z.number().int().positive(),
  taskId: z.string(),
  delegationId: z.string().nullable(),
  /** Actor name that published, e.g. `delegation:call_1:repo`; not unique under parallel delegations. */
  source: z.string(),
  type: z.string(),
  lane: LaneSchema,
  ts: z.number(),
  payload: EventSchema,
});
export type Envelope = z.infer<typeof EnvelopeSchema>;
