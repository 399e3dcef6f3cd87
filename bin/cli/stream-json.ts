// stream-json v2: one JSON object per line carrying seq, task and delegation coordinates and parent links; the result
// object (json, stream-json's last line, every batch result line) is one schema for every client (README "Output schema").
import { z } from 'zod';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { TaskOutcome } from '../host/types.js';
import { usageByAgentJson, usageJson } from './usage-report.js';

/** 2: cost_usd is null when a model has no price (was 0), duration_ms added, batch results carry the result object. */
export const STREAM_JSON_VERSION = 2 as const;

/** Every line of `--output-format stream-json`; `seq` is null only on client-made lines (run_start, result). */
export const StreamLineSchema = z.object({
  v: z.literal(STREAM_JSON_VERSION),
  seq: z.number().int().positive().nullable(),
  task_id: z.string(),
  /** The delegation that published this event; null = the Director. */
  delegation_id: z.string().nullable(),
  /** The delegation that started `delegation_id`; null = started by the Director (or is the Director). */
  parent: z.string().nullable(),
  source: z.string(),
  type: z.string(),
  ts: z.number(),
  data: z.record(z.string(), z.unknown()),
});
export type StreamLine = z.infer<typeof StreamLineSchema>;

const UsageJsonSchema = z.object({ input_tokens: z.number(), output_tokens: z.number(), cached_input_tokens: z.number(), reasoning_tokens: z.number() });

/** The final object of `--output-format json` (and the `data` of the last stream-json line). */
export const ResultObjectSchema = z.object({
  v: z.literal(STREAM_JSON_VERSION),
  type: z.literal('result'),
  task_id: z.string(),
  result: z.string(),
  stop_reason: z.string(),
  /** Every agent's tokens (the Director's and each delegation's, nested ones included). */
  usage: UsageJsonSchema,
  usage_by_agent: z.array(
    UsageJsonSchema.extend({ agent: z.string(), provider: z.string(), model: z.string(), calls: z.number(), cost_usd: z.number().nullable() }),
  ),
  /** Estimated USD; null when a model of the run has no price (unpriced_models names them: "no price", never $0). */
  cost_usd: z.number().nullable(),
  unpriced_models: z.array(z.string()),
  notes: z.array(z.string()),
  /** Present when the board could not be listed: `notes` is then unknown, not empty. */
  notes_error: z.string().optional(),
  rollout_path: z.string().nullable(),
  /** What `yagent -p … --resume SESSION_ID` takes (null when the turn never started). */
  session_id: z.string().nullable(),
  exit_code: z.number().int(),
  needs_approval: z.array(z.string()),
  error: z.string().optional(),
  /** Wall time of the turn, from its start to its outcome. */
  duration_ms: z.number().int().nonnegative(),
});
export type ResultObject = z.infer<typeof ResultObjectSchema>;

/** Rebuilds parent links: a delegation_start names the call id that the child's delegation id carries. */
export class DelegationTree {
  private readonly callParent = new Map<string, string | null>();
  private readonly parents = new Map<string, string | null>();

  observe(env: Envelope): void {
    if (env.payload.type === 'delegation_start') this.callParent.set(env.payload.callId, env.delegationId);
  }

  parentOf(delegationId: string | null): string | null {
    if (delegationId === null) return null;
    const cached = this.parents.get(delegationId);
    if (cached !== undefined) return cached;
    for (const [callId, parent] of this.callParent) {
      if (delegationId === callId || delegationId.split(':').includes(callId)) {
        this.parents.set(delegationId, parent);
        return parent;
      }
    }
    return null;
  }
}

export function envelopeLine(env: Envelope, tree: DelegationTree): StreamLine {
  tree.observe(env);
  const { type, ...data } = env.payload;
  return {
    v: STREAM_JSON_VERSION,
    seq: env.seq,
    task_id: env.taskId,
    delegation_id: env.delegationId,
    parent: tree.parentOf(env.delegationId),
    source: env.source,
    type,
    ts: env.ts,
    data,
  };
}

export function clientLine(taskId: string, type: string, data: Record<string, unknown>, ts = Date.now()): StreamLine {
  return { v: STREAM_JSON_VERSION, seq: null, task_id: taskId, delegation_id: null, parent: null, source: 'client', type, ts, data };
}

export function resultObject(outcome: TaskOutcome, exitCode: number, needsApproval: string[], durationMs: number): ResultObject {
  const obj: ResultObject = {
    v: STREAM_JSON_VERSION,
    type: 'result',
    task_id: outcome.taskId,
    result: outcome.text,
    stop_reason: outcome.stopReason,
    usage: usageJson(outcome.usage),
    usage_by_agent: usageByAgentJson(outcome),
    cost_usd: costOrNull(outcome),
    unpriced_models: outcome.unpricedModels ?? [],
    notes: outcome.notes,
    rollout_path: outcome.rolloutPath,
    session_id: outcome.sessionId ?? null,
    exit_code: exitCode,
    needs_approval: needsApproval,
    duration_ms: Math.max(0, Math.round(durationMs)),
  };
  if (outcome.error) obj.error = `${outcome.error.name}: ${outcome.error.message}`;
  if (outcome.notesError !== undefined) obj.notes_error = outcome.notesError;
  return obj;
}

/** The estimate, or null when any model of the run has no price (a partial sum would read as the whole cost). */
export function costOrNull(o: Pick<TaskOutcome, 'costUsd' | 'unpricedModels'>): number | null {
  return (o.unpricedModels ?? []).length > 0 ? null : (o.costUsd ?? 0);
}
