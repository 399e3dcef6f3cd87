// Runtime control messages between the main thread and actor workers, and the RPC wire format.
import { z } from 'zod';
import { SerializedErrorSchema } from './errors.js';

/** Structural MessagePort: the protocol leaf may not import node types. */
export interface PortLike {
  postMessage(value: unknown, transferList?: readonly unknown[]): void;
}
const PortSchema = z.custom<PortLike>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { postMessage?: unknown }).postMessage === 'function',
  { message: 'expected a MessagePort' },
);
const SharedSchema = z.record(
  z.string(),
  z.custom<SharedArrayBuffer>((v) => v instanceof SharedArrayBuffer, { message: 'expected a SharedArrayBuffer' }),
);

export const RestartTypeSchema = z.enum(['permanent', 'transient', 'temporary'], {
  message: 'restart must be one of permanent | transient | temporary',
});

export const ResourceLimitsSchema = z.object({
  maxOldGenerationSizeMb: z.number({ message: 'resourceLimits.maxOldGenerationSizeMb must be a number' }).positive().optional(),
  maxYoungGenerationSizeMb: z.number({ message: 'resourceLimits.maxYoungGenerationSizeMb must be a number' }).positive().optional(),
  stackSizeMb: z.number({ message: 'resourceLimits.stackSizeMb must be a number' }).positive().optional(),
});

/** SpawnSpec as it crosses threads; every message names its field. */
export const SpawnSpecSchema = z.object({
  name: z.string({ message: 'name must be a string' }).min(1, { message: 'name must not be empty' }),
  module: z
    .string({ message: 'module must be a path relative to dist/' })
    .regex(/^[^/].*\.js$/, { message: 'module must be a relative .js path under dist/, e.g. src/actors/x.js' }),
  input: z.unknown(),
  delegationId: z.string({ message: 'delegationId must be a string or null' }).nullable().optional(),
  shutdownMs: z.number({ message: 'shutdownMs must be a number' }).int().nonnegative({ message: 'shutdownMs must be >= 0' }).optional(),
  resourceLimits: ResourceLimitsSchema.optional(),
  restart: RestartTypeSchema.optional(),
});
export type SpawnSpecWire = z.infer<typeof SpawnSpecSchema>;

export const HelpRequestSchema = z.object({
  agent: z.string(),
  kind: z.enum(['authorization', 'question']),
  question: z.string(),
  tool: z.string().optional(),
  detail: z.string().optional(),
});

const result = {
  requestId: z.string(),
  ok: z.boolean(),
  value: z.unknown().optional(),
  error: SerializedErrorSchema.optional(),
};

/** Main thread → actor worker. */
export const ToWorkerSchema = z.lazy(() => z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    name: z.string(),
    module: z.string(),
    taskId: z.string().nullable(),
    delegationId: z.string().nullable(),
    input: z.unknown(),
    shared: SharedSchema,
    paused: z.boolean(),
    creditWindow: z.number().int().positive(),
    rpcTimeoutMs: z.number().int().positive(),
  }),
  z.object({ type: z.literal('stop'), reason: z.string(), graceMs: z.number() }),
  z.object({ type: z.literal('pause'), paused: z.boolean() }),
  /** One of this actor's children was paused or resumed on its own (`Runtime.pauseActors`): the parent's timers for it freeze too. */
  z.object({ type: z.literal('child_pause'), name: z.string(), paused: z.boolean() }),
  z.object({ type: z.literal('credit'), n: z.number().int().nonnegative() }),
  z.object({ type: z.literal('port'), requestId: z.string(), port: PortSchema.optional(), error: SerializedErrorSchema.optional() }),
  z.object({ type: z.literal('accept'), port: PortSchema }),
  z.object({ type: z.literal('spawn_result'), ...result }),
  z.object({ type: z.literal('help_result'), ...result }),
]));
export type ToWorker = z.infer<typeof ToWorkerSchema>;

/** Actor worker → main thread. */
export const FromWorkerSchema = z.lazy(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), preloadMs: z.number(), failed: z.array(z.string()) }),
  z.object({ type: z.literal('started'), kind: z.string(), served: z.boolean() }),
  z.object({ type: z.literal('start_failed'), error: SerializedErrorSchema }),
  /** Events are validated one by one (EventSchema) so one bad event cannot sink a batch. */
  z.object({ type: z.literal('publish'), events: z.array(z.unknown()), dropped: z.record(z.string(), z.number().int()) }),
  z.object({ type: z.literal('done'), ok: z.boolean(), value: z.unknown().optional(), error: SerializedErrorSchema.optional() }),
  /** error: the actor's stop() hook failed (e.g. the store's final flush): reported, never swallowed.
   *  value: what run() returned before the stop ended (a cancelled agent's usage reaches whoever spawned it). */
  z.object({ type: z.literal('stopped'), running: z.array(z.string()), error: SerializedErrorSchema.optional(), value: z.unknown().optional() }),
  z.object({ type: z.literal('connect'), requestId: z.string(), target: z.string() }),
  z.object({ type: z.literal('spawn'), requestId: z.string(), spec: z.unknown() }),
  z.object({ type: z.literal('spawn_cancel'), requestId: z.string() }),
  z.object({ type: z.literal('help'), requestId: z.string(), request: HelpRequestSchema }),
  z.object({ type: z.literal('help_cancel'), requestId: z.string() }),
  /** A process group the actor started (or found empty): the main thread kills what is registered when the worker exits. */
  z.object({ type: z.literal('process_group'), op: z.enum(['register', 'unregister']), pgid: z.number().int().gt(1) }),
]));
export type FromWorker = z.infer<typeof FromWorkerSchema>;

/** The RPC wire format on a dedicated MessagePort. */
export const RpcMessageSchema = z.lazy(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('call'), id: z.number().int(), method: z.string(), args: z.array(z.unknown()) }),
  z.object({ type: z.literal('result'), id: z.number().int(), ok: z.boolean(), value: z.unknown().optional(), error: SerializedErrorSchema.optional() }),
]));
export type RpcMessage = z.infer<typeof RpcMessageSchema>;

/** Stable wire codes of runtime failures (RemoteError.code). */
export const RUNTIME_ERROR_CODES = [
  'ACTOR_CRASHED',
  'ACTOR_EXITED',
  'ACTOR_TIMEOUT',
  'ACTOR_OOM',
  'RPC_TIMEOUT',
  'JOB_TIMEOUT',
  'PORT_CLOSED',
  'NO_SUCH_METHOD',
  /** An RPC message that fails the wire schema: its call ends with the schema's issue. */
  'BAD_MESSAGE',
  'NOT_FOUND',
  'NO_RESPONDER',
  'DUPLICATE_CHILD',
  'INVALID_SPEC',
  'CANCELLED',
  'SHUTTING_DOWN',
] as const;
export type RuntimeErrorCode = (typeof RUNTIME_ERROR_CODES)[number];
