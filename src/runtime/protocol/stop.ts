// The stop-reason vocabulary of the seeds (memory/rollout_types.go): every terminal record carries one.
import { z } from 'zod';

export const STOP_REASONS = [
  'paused',
  'cancelled',
  'idle_timeout',
  'total_timeout',
  'max_steps',
  'llm_error',
  'circuit_breaker_open',
  'panic',
  'plain_text',
  'agent_exit',
  'unaccounted',
] as const;
export const StopReasonSchema = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReasonSchema>;
