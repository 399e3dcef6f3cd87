// Supervision as data: child specs and supervisor options validated with messages that name the field.
import { z } from 'zod';
import { RestartTypeSchema } from './protocol/index.js';
import type { ChildSpec } from './child.js';

export const StrategySchema = z.enum(['one_for_one', 'one_for_all', 'rest_for_one'], {
  message: 'strategy must be one of one_for_one | one_for_all | rest_for_one',
});
export type Strategy = z.infer<typeof StrategySchema>;

const ChildSpecSchema = z.object({
  id: z.string({ message: 'id must be a string' }).min(1, { message: 'id must not be empty' }),
  kind: z.string({ message: 'kind must be a string' }).optional(),
  start: z.custom<ChildSpec['start']>((v) => typeof v === 'function', { message: 'start must be a function returning a child handle' }),
  restart: RestartTypeSchema,
  shutdownMs: z
    .number({ message: 'shutdownMs must be a number' })
    .int({ message: 'shutdownMs must be an integer' })
    .nonnegative({ message: 'shutdownMs must be >= 0' }),
});

export const SupervisorLimitsSchema = z.object({
  strategy: StrategySchema.default('one_for_one'),
  intensity: z.number({ message: 'intensity must be a number' }).int().nonnegative({ message: 'intensity must be >= 0' }).default(1),
  periodMs: z.number({ message: 'periodMs must be a number' }).positive({ message: 'periodMs must be > 0' }).default(5000),
  backoff: z
    .object({
      initialMs: z.number({ message: 'backoff.initialMs must be a number' }).nonnegative(),
      maxMs: z.number({ message: 'backoff.maxMs must be a number' }).nonnegative(),
      jitter: z.number({ message: 'backoff.jitter must be a number' }).min(0).max(1, { message: 'backoff.jitter must be within 0..1' }),
    })
    .default({ initialMs: 10, maxMs: 2000, jitter: 0.2 }),
});
export type SupervisorLimits = z.infer<typeof SupervisorLimitsSchema>;

export class SpecError extends Error {
  readonly code = 'INVALID_SPEC';
  constructor(message: string) {
    super(message);
    this.name = 'SpecError';
  }
}

function explain(where: string, err: z.ZodError): SpecError {
  const parts = err.issues.map((i) => (i.path.length > 0 && !i.message.startsWith(String(i.path[0])) ? `${i.path.join('.')}: ${i.message}` : i.message));
  return new SpecError(`${where}: ${parts.join('; ')}`);
}

export function validateChildSpec(spec: unknown): ChildSpec {
  const r = ChildSpecSchema.safeParse(spec);
  if (!r.success) {
    const id = typeof (spec as { id?: unknown } | null)?.id === 'string' ? (spec as { id: string }).id : '?';
    throw explain(`child spec ${id}`, r.error);
  }
  return spec as ChildSpec;
}

export function validateLimits(name: string, v: unknown): SupervisorLimits {
  const r = SupervisorLimitsSchema.safeParse(v ?? {});
  if (!r.success) throw explain(`supervisor ${name}`, r.error);
  return r.data;
}
