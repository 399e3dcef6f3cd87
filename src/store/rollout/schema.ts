// zod schemas of rollout records: the boundary where lines read back from disk become typed records.
import { z } from 'zod';
import { ChatMessageSchema, StopReasonSchema, UsageEntrySchema } from '../../runtime/protocol/index.js';
import type { RolloutRecord } from '../api.js';

export const SessionMetaSchema = z.object({
  sessionId: z.string(),
  taskId: z.string(),
  agent: z.string(),
  projectId: z.string(),
  cwd: z.string(),
  git: z.object({ commit: z.string().optional(), branch: z.string().optional(), remote: z.string().optional(), dirty: z.boolean().optional() }).nullable().optional(),
  delegationId: z.string().nullable(),
  parentSessionId: z.string().nullable(),
  boardId: z.string(),
});

export const AgentCheckpointSchema = z.object({
  step: z.number().int(),
  stopReason: StopReasonSchema,
  fingerprint: z.string(),
  model: z.string(),
  delegationId: z.string().nullable(),
  messageCount: z.number().int().optional(),
  workspace: z.object({ head: z.string().nullable(), branch: z.string().nullable(), files: z.array(z.object({ path: z.string(), sha256: z.string() })) }).optional(),
});

const ts = z.number();
export const RolloutRecordSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session_meta'), ts, payload: SessionMetaSchema }),
  z.object({
    type: z.literal('turn_context'),
    ts,
    payload: z.object({ model: z.string(), provider: z.string(), cwd: z.string(), step: z.number().int().optional() }),
  }),
  z.object({ type: z.literal('response_item'), ts, payload: ChatMessageSchema }),
  z.object({
    type: z.literal('event_msg'),
    ts,
    payload: z.object({ kind: z.string(), stopReason: StopReasonSchema.optional(), detail: z.string().optional(), usage: UsageEntrySchema.optional() }),
  }),
  z.object({
    type: z.literal('compacted'),
    ts,
    payload: z.object({ replacesCount: z.number().int().nonnegative(), messages: z.array(ChatMessageSchema) }),
  }),
  z.object({ type: z.literal('agent_checkpoint'), ts, payload: AgentCheckpointSchema }),
]);

/** Parses one JSONL line; null when it is not a valid record (torn or corrupt). */
export function parseRecordLine(line: string): RolloutRecord | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  const r = RolloutRecordSchema.safeParse(raw);
  return r.success ? (r.data as RolloutRecord) : null;
}
