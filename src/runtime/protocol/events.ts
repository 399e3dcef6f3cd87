// Every event an actor publishes through the dispatcher: one discriminated union on `type`.
import { z } from 'zod';
import { StopReasonSchema } from './stop.js';
import { UsageSchema } from './messages.js';
import { SerializedErrorSchema } from './errors.js';

const agentRef = { agent: z.string() };
const TierSchema = z.enum(['fast', 'balanced', 'high']);
/** Where a failed attempt went and what came back: the llm-error log and stream-json carry them. */
const failure = {
  /** api_base_url of the provider (absent when the engine has none, unit tests). */
  url: z.string().optional(),
  /** The error class (`LlmErrorCode`: CONNECTION, AUTH, SERVER_ERROR, CANCELLED, …). */
  code: z.string().optional(),
  /** The last HTTP status, when the server answered. */
  status: z.number().int().optional(),
  /** The system error code (ECONNREFUSED, ENOTFOUND, …), when there was one. */
  errno: z.string().optional(),
};

export const EventSchema = z.lazy(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('ai_stream_start'), ...agentRef, step: z.number().int() }),
  z.object({ type: z.literal('ai_chunk'), ...agentRef, text: z.string() }),
  z.object({ type: z.literal('ai_stream_end'), ...agentRef }),
  z.object({ type: z.literal('ai_response'), ...agentRef, text: z.string() }),
  z.object({ type: z.literal('thinking'), ...agentRef, text: z.string() }),
  /** One model call to one provider (its retries included); `tier` when routing chose it. */
  z.object({ type: z.literal('llm_call_start'), ...agentRef, model: z.string(), provider: z.string(), tier: TierSchema.optional() }),
  z.object({
    type: z.literal('llm_call_end'),
    ...agentRef,
    model: z.string(),
    provider: z.string().default(''),
    tier: TierSchema.optional(),
    /** Tokens in/out/cached/reasoning as the provider reported them (absent when the call failed). */
    usage: UsageSchema.optional(),
    /** Wall time of the whole call, retries and backoff included. */
    durationMs: z.number(),
    retries: z.number().int().nonnegative().default(0),
    error: z.string().optional(),
    ...failure,
  }),
  /** The provider/model an agent's engine talks to: at its first call and whenever it changes. */
  /** `contextWindow`: the window the run uses, `windowSource` where it came from (config, the server, the catalogue, an
   *  overflow answer), `compressionThreshold` the prompt size at which compression starts. */
  z.object({ type: z.literal('model_info'), ...agentRef, model: z.string(), provider: z.string(), tier: TierSchema.optional(), contextWindow: z.number().int().optional(), windowSource: z.string().optional(), compressionThreshold: z.number().int().optional() }),
  /** A failed attempt that will be retried after `waitMs` (attempt = the number of the next attempt, from 2). With
   *  `step`, attempts are numbered across the loop's tries of that step (one sequence, `maxAttempts` of them in all);
   *  `stepRetry` = the provider gave up and the loop tries the whole step again. */
  z.object({
    type: z.literal('llm_retry'),
    ...agentRef,
    provider: z.string(),
    model: z.string(),
    step: z.number().int().positive().optional(),
    attempt: z.number().int().positive(),
    maxAttempts: z.number().int().positive(),
    waitMs: z.number().nonnegative(),
    reason: z.string(),
    stepRetry: z.boolean().optional(),
    ...failure,
  }),
  /** A model call that has had no byte from the server (`phase: answer`) or no gate slot (`slot`) for `waitedMs`:
   *  every 5 s while it lasts, then once with `over` when bytes flow again or the attempt ends. */
  z.object({
    type: z.literal('llm_waiting'),
    ...agentRef,
    provider: z.string(),
    model: z.string(),
    phase: z.enum(['slot', 'answer']),
    waitedMs: z.number().nonnegative(),
    step: z.number().int().positive().optional(),
    attempt: z.number().int().positive(),
    maxAttempts: z.number().int().positive(),
    over: z.boolean().default(false),
  }),
  /** A provider's circuit breaker changed state (seen by the thread that changed it). */
  z.object({ type: z.literal('breaker_state'), ...agentRef, provider: z.string(), state: z.enum(['closed', 'open', 'half-open']) }),
  z.object({
    type: z.literal('model_routed'),
    ...agentRef,
    tier: TierSchema,
    provider: z.string(),
    reason: z.string(),
  }),
  z.object({ type: z.literal('provider_fallback'), ...agentRef, from: z.string(), to: z.string(), reason: z.string() }),
  z.object({
    type: z.literal('tool_call_start'),
    ...agentRef,
    callId: z.string(),
    name: z.string(),
    brief: z.string(),
  }),
  z.object({
    type: z.literal('tool_call_result'),
    ...agentRef,
    callId: z.string(),
    name: z.string(),
    ok: z.boolean(),
    display: z.string(),
  }),
  z.object({
    type: z.literal('user_help_needed'),
    ...agentRef,
    requestId: z.string(),
    kind: z.enum(['authorization', 'question']),
    question: z.string(),
    tool: z.string().optional(),
    detail: z.string().optional(),
  }),
  z.object({
    type: z.literal('user_help_response'),
    requestId: z.string(),
    approved: z.boolean(),
    answer: z.string().optional(),
    scope: z.enum(['once', 'session', 'project']).default('once'),
  }),
  /** A request that ended without an answer (its asker gave up or is gone, its task ended): clients close its dialog. */
  z.object({ type: z.literal('user_help_withdrawn'), requestId: z.string(), reason: z.string() }),
  /** A message given to a running task (typed in a client, `attach send`): queued until the Director takes it. */
  z.object({ type: z.literal('message_queued'), text: z.string() }),
  /** A message the user typed while the task worked, taken by the Director at a step boundary (`queued` on the client). */
  z.object({ type: z.literal('user_message'), ...agentRef, text: z.string() }),
  /** A model switch taken by a running agent at a step boundary (`provider` null = routing decides again). */
  z.object({ type: z.literal('model_switched'), ...agentRef, provider: z.string().nullable(), model: z.string().optional(), error: z.string().optional() }),
  z.object({ type: z.literal('context_loaded'), ...agentRef, files: z.array(z.string()) }),
  z.object({
    type: z.enum(['context_compressed', 'context_emergency_compressed', 'context_ultimate_compressed']),
    ...agentRef,
    beforeTokens: z.number(),
    afterTokens: z.number(),
  }),
  z.object({ type: z.literal('delegation_start'), ...agentRef, callId: z.string(), child: z.string(), task: z.string() }),
  z.object({
    type: z.literal('delegation_end'),
    ...agentRef,
    callId: z.string(),
    child: z.string(),
    status: z.string(),
    noteRef: z.string().optional(),
  }),
  /** A write delegation's own git worktree (issue 26): opened (no `merged`), then merged back or kept on a conflict branch. */
  z.object({
    type: z.literal('delegation_worktree'),
    ...agentRef,
    callId: z.string(),
    child: z.string(),
    branch: z.string(),
    path: z.string(),
    merged: z.enum(['merged', 'conflict']).optional(),
    files: z.array(z.string()).optional(),
  }),
  /** A crashed delegation actor restarted by its parent (continues from its rollout), with the crash reason. */
  z.object({ type: z.literal('delegation_restarted'), ...agentRef, callId: z.string(), child: z.string(), attempt: z.number().int(), maxRestarts: z.number().int(), reason: z.string() }),
  z.object({ type: z.literal('note_written'), ...agentRef, ref: z.string(), status: z.string(), mentions: z.array(z.string()) }),
  z.object({ type: z.literal('sub_agent_activity'), ...agentRef, text: z.string() }),
  z.object({ type: z.literal('conversation_result'), ...agentRef, text: z.string(), stopReason: StopReasonSchema }),
  z.object({ type: z.literal('conversation_error'), ...agentRef, error: SerializedErrorSchema }),
  z.object({ type: z.literal('task_paused') }),
  /** One actor paused or continued on its own (its task runs on); the tree snapshot's `paused` says the same. */
  z.object({ type: z.literal('actor_paused'), actor: z.string(), paused: z.boolean() }),
  z.object({ type: z.literal('task_resumed') }),
  z.object({ type: z.literal('task_end'), stopReason: StopReasonSchema, text: z.string().optional() }),
  z.object({ type: z.literal('drop_report'), scope: z.string(), dropped: z.record(z.string(), z.number()) }),
  z.object({
    type: z.literal('mcp_server_state'),
    server: z.string(),
    state: z.enum(['connecting', 'ready', 'failed', 'restarting', 'closed']),
    tools: z.number().int(),
    error: z.string().optional(),
  }),
  /** `source`: the call that failed (a swallowed failure made visible: src/runtime/log-event.ts). */
  z.object({ type: z.literal('log'), level: z.enum(['debug', 'info', 'warn', 'error']), message: z.string(), source: z.string().optional() }),
]));
export type Event = z.infer<typeof EventSchema>;
export type EventType = Event['type'];
export type EventOf<T extends EventType> = Extract<Event, { type: T }>;

/** Event types that ride the critical lane: never dropped, never behind the credit window. */
export const CRITICAL_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'user_help_needed',
  'user_help_response',
  'user_help_withdrawn',
  'message_queued',
  'user_message',
  'model_switched',
  'task_paused',
  'task_resumed',
  'actor_paused',
  'task_end',
  'conversation_result',
  'conversation_error',
  'delegation_start',
  'delegation_end',
  'delegation_restarted',
  'delegation_worktree',
]);
