// Input and output of one agent run (what crosses the spawn boundary: plain data, zod-validated).
import { z } from 'zod';
import { ChatMessageSchema, StopReasonSchema, UsageSchema, UsageEntrySchema, ModelHandoffStatusSchema } from '../../runtime/protocol/index.js';
import { BUILTIN_AGENTS, DELEGATE_TARGETS } from './profiles.js';

/** What a run can be: a built-in agent or a custom one (Meta's design). */
const ROLES = [...BUILTIN_AGENTS, 'custom'] as const;

export const CustomAgentDesignSchema = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_]{2,31}$/, 'name must be snake_case, 3-32 chars, starting with a letter')
    .refine((n) => !(ROLES as readonly string[]).includes(n), 'name must not be a built-in agent'),
  description: z.string().min(1).max(400),
  system_prompt: z.string().min(20),
  tools: z.array(z.string()).max(32),
});
export type CustomAgentDesign = z.infer<typeof CustomAgentDesignSchema>;

/** `[enhanced_commander]` as the loop needs it (see compression/threshold.ts CompressionSettings). */
export const CompressionSettingsSchema = z.object({
  enabled: z.boolean(),
  threshold: z.number().int().positive().optional(),
  envOverride: z.number().int().positive().optional(),
  toolResultKeepTokens: z.number().int().positive(),
  enableUltimate: z.boolean(),
  ultimateKeepPlans: z.number().int().min(0),
});

export const RunSettingsSchema = z.object({
  workspace: z.string(),
  /** A writer in its own worktree (issue 26): the user's workspace, whose project-level grants still apply. */
  userWorkspace: z.string().optional(),
  taskId: z.string(),
  boardId: z.string(),
  projectId: z.string(),
  yolo: z.boolean(),
  fullYolo: z.boolean(),
  lang: z.string(),
  /** Config file the worker loads (undefined = the default location). */
  configPath: z.string().optional(),
  maxParallelDelegations: z.number().int().positive(),
  delegateIdleMs: z.number().int().positive(),
  delegateTotalMs: z.number().int().positive(),
  /** Deliverables over this many tokens go to an artifact. */
  artifactTokenBudget: z.number().int().positive(),
  /** false (YAGENT_ARTIFACT_DISABLE=1): every deliverable stays in the context in full, whatever its size. */
  artifacts: z.boolean().default(true),
  /** `[llm] step_retries` for every agent's loop (absent = each agent's own flag). */
  stepRetries: z.number().int().min(0).optional(),
  maxStepsOverride: z.record(z.string(), z.number().int()).default({}),
  maxParallelReadOnlyTools: z.number().int().optional(),
  indexMaxNotes: z.number().int().default(12),
  indexLineChars: z.number().int().default(160),
  /** -d: sub-agents nobody in this run may delegate to (their delegate_* tools are withheld). */
  /** TUI `/model`: this provider wins over routing for every agent of the run (absent = routing decides). */
  providerOverride: z.string().optional(),
  /** `--model`: this model on the override provider instead of its configured one (needs providerOverride). */
  modelOverride: z.string().optional(),
  disabledAgents: z.array(z.enum(DELEGATE_TARGETS as [string, ...string[]])).default([]),
  /** `[resume] enable` (and YAGENT_RESUME=0): false = no checkpoints written, no delegation replayed. */
  resume: z.boolean().default(true),
  /** `[resume] max_replay_messages`: a longer replay degrades to a handoff report; 0 = no limit. */
  maxReplayMessages: z.number().int().default(2000),
  compression: CompressionSettingsSchema.default({ enabled: true, toolResultKeepTokens: 200, enableUltimate: true, ultimateKeepPlans: 3 }),
  /** `[resume] max_restarts`: restarts of one crashed delegation actor before the Director gets a degraded report. */
  maxRestarts: z.number().int().min(0).default(2),
  /** `[resume] checkpoint_workspace`: a delegation's checkpoint records HEAD, branch and its touched files' digests. */
  checkpointWorkspace: z.boolean().default(true),
  /** `[resume] degrade_on_workspace_change`: a replay onto a workspace that changed since the checkpoint becomes C. */
  degradeOnWorkspaceChange: z.boolean().default(true),
});
export type RunSettings = z.infer<typeof RunSettingsSchema>;

/** One plan of the thinklink store (`compression/thinklink.ts` ThinkEntry). */
const ThinkEntrySchema = z.object({ step: z.number().int(), text: z.string() });

export const AgentRunInputSchema = z.object({
  /** Identity used for routing, scripts and events: built-in name or the custom agent's name. */
  agent: z.string(),
  role: z.enum(ROLES),
  /** The user's prompt (Director) or the delegation prefix (sub-agents). */
  brief: z.string(),
  settings: RunSettingsSchema,
  custom: CustomAgentDesignSchema.optional(),
  /** Tool names of the Director's palette (Meta chooses from it). */
  palette: z.array(z.string()).default([]),
  delegationId: z.string().nullable(),
  parentSessionId: z.string().nullable(),
  /** Director of a task its host created just now (a new id, no session resumed, no board given): nothing can be on
   *  its board yet, so its first step asks the store for no note index and its first request waits for no store. */
  freshBoard: z.boolean().optional(),
  /** Root docs read once per session by the Director and handed down (cached per session, not per worker). */
  rootContext: z.object({ files: z.array(z.string()), text: z.string() }).optional(),
  /** A delegation continued from its rollout (recovery B): the repaired replay replaces system + brief; the plans
   *  its rollout holds refill the thinklink store (a compressed replay no longer holds them). */
  resumeFrom: z
    .object({
      messages: z.array(ChatMessageSchema),
      plans: z.array(ThinkEntrySchema).default([]),
      /** A restarted Director (after a crash): the delegations its last incarnation left interrupted, recovered first. */
      pending: z.array(z.object({ callId: z.string(), target: z.string(), task: z.string(), rolloutPath: z.string() })).default([]),
    })
    .optional(),
  /** Director only: the session's earlier turns, the plans of the last one and the delegations it left interrupted. */
  session: z
    .object({
      history: z.array(ChatMessageSchema),
      plans: z.array(ThinkEntrySchema).default([]),
      pending: z.array(z.object({ callId: z.string(), target: z.string(), task: z.string(), rolloutPath: z.string() })),
      resumed: z.boolean(),
    })
    .optional(),
});
export type PendingDelegation = NonNullable<z.infer<typeof AgentRunInputSchema>['session']>['pending'][number];
export type AgentRunInput = z.input<typeof AgentRunInputSchema>;
export type AgentRunInputParsed = z.infer<typeof AgentRunInputSchema>;

export const AgentRunOutputSchema = z.object({
  agent: z.string(),
  stopReason: StopReasonSchema,
  text: z.string(),
  exit: z
    .object({
      conclusion: z.string(),
      facts: z.array(z.string()),
      artifacts: z.array(z.string()),
      status: ModelHandoffStatusSchema,
      deliverable: z.string().optional(),
    })
    .optional(),
  steps: z.number().int(),
  /** Tokens of this run and every delegation under it (nested ones included). */
  usage: UsageSchema,
  /** The same tokens by agent × provider × model. */
  usageByAgent: z.array(UsageEntrySchema).optional(),
  error: z.string().optional(),
  rolloutPath: z.string(),
  sessionId: z.string(),
  design: CustomAgentDesignSchema.optional(),
  thoughtFailures: z.number().int(),
  /** A Repo run's blueprint fold, as an account line (for the note and the event stream, never the conclusion). */
  blueprintAccount: z.string().optional(),
});
export type AgentRunOutput = z.infer<typeof AgentRunOutputSchema>;

/** The output a stopped run handed over on its error (`result`: a cancel within its grace), or null when it gave none. */
export function resultOnError(err: unknown): AgentRunOutput | null {
  const r = AgentRunOutputSchema.safeParse((err as { result?: unknown } | null)?.result);
  return r.success ? r.data : null;
}
