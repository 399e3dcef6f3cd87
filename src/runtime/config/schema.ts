// zod schema of the raw TOML document: shapes and types only; meaning is given by normalise.ts. Built at its first
// use (loader.ts): importing the config module builds nothing (issue 29: the pre-sent first request's path checks a
// config with raw-spec.ts, this schema's plain-data twin, and builds this only for a config that check is unsure of).
import { z } from 'zod';
import { exportPathProblem } from './blueprint-export.js';

function build() {
  const num = z.number();
  const int = z.number().int();
  const dur = z.union([z.string(), z.number()]);
  const useProvider = z.looseObject({ use_provider: z.string().optional() });

  const FallbackRefSchema = z.union([
    z.string(),
    z.object({ provider: z.string(), weight: z.number().positive().optional() }),
  ]);

  const RawProviderSchema = z.looseObject({
    model: z.string().optional(),
    api_base_url: z.string().optional(),
    api_key: z.string().optional(),
    api_key_env: z.string().optional(),
    context_window: int.optional(),
    temperature: num.optional(),
    max_tokens: int.optional(),
    reasoning_effort: z.string().optional(),
    api_format: z.enum(['openai', 'anthropic']).optional(),
    fallback_providers: z.array(FallbackRefSchema).optional(),
  });

  const TierSchema = z.enum(['fast', 'balanced', 'high']);

  const RawConfigSchema = z.looseObject({
    global: z
      .looseObject({
        llm: z
          .looseObject({
            use_provider: z.string().optional(),
            providers: z.record(z.string(), RawProviderSchema).optional(),
          })
          .optional(),
      })
      .optional(),
    agents: z.looseObject({ llm: z.record(z.string(), z.union([z.string(), useProvider])).optional() }).optional(),
    tools: z.looseObject({ llm: z.record(z.string(), z.union([z.string(), useProvider])).optional() }).optional(),
    agent: z
      .looseObject({
        director_max_steps: int.optional(),
        coding_max_steps: int.optional(),
        repo_max_steps: int.optional(),
        chat_max_steps: int.optional(),
        devops_max_steps: int.optional(),
        browser_max_steps: int.optional(),
        delegate_idle_timeout: dur.optional(),
        delegate_total_timeout: dur.optional(),
        max_parallel_readonly_tools: int.optional(),
        max_parallel_delegations: int.optional(),
        lang: z.string().optional(),
      })
      .optional(),
    llm: z
      .looseObject({
        timeout: dur.optional(),
        max_retries: int.optional(),
        step_retries: int.optional(),
        enable_fallback: z.boolean().optional(),
        fallback_max_retries: int.optional(),
        max_in_flight_requests: int.optional(),
        circuit_breaker_threshold: int.optional(),
        circuit_breaker_cooldown: dur.optional(),
        call_budget: dur.optional(),
        stream_idle_timeout: dur.optional(),
        max_answer_chars: int.optional(),
        prices: z.record(z.string(), z.looseObject({ input: num.nonnegative(), output: num.nonnegative(), cached_input: num.nonnegative().optional() })).optional(),
      })
      .optional(),
    routing: z
      .looseObject({
        mode: z.enum(['auto', 'fixed']).optional(),
        classifier_timeout: dur.optional(),
        baselines: z.record(z.string(), TierSchema).optional(),
        tiers: z.looseObject({ fast: z.string().optional(), balanced: z.string().optional(), high: z.string().optional() }).optional(),
      })
      .optional(),
    enhanced_commander: z
      .looseObject({
        enable_context_compression: z.boolean().optional(),
        context_compression_threshold: int.optional(),
        tool_result_keep_tokens: int.optional(),
        enable_ultimate_compression: z.boolean().optional(),
        ultimate_compression_keep_plans: int.optional(),
      })
      .optional(),
    blackboard: z
      .looseObject({
        index_max_notes: int.optional(),
        index_line_chars: int.optional(),
        ttl: dur.optional(),
        summary_max_runes: int.optional(),
        max_notes_per_board: int.optional(),
      })
      .optional(),
    resume: z
      .looseObject({
        enable: z.boolean().optional(),
        replay_token_budget: int.optional(),
        max_replay_messages: int.optional(),
        // true|false; a string is the old reserved warn|block form (normalise warns and uses the default)
        degrade_on_workspace_change: z.union([z.boolean(), z.string()]).optional(),
        checkpoint_workspace: z.boolean().optional(),
        max_restarts: int.optional(),
      })
      .optional(),
    blueprint: z
      .looseObject({
        enable: z.boolean().optional(),
        inject_into: z.array(z.string()).optional(),
        index_max_tokens: int.optional(),
        prose_budget_tokens: int.optional(),
        // a bad path stops the load with the reason (not at the first fold, minutes into a run)
        export_path: z
          .string()
          .superRefine((p, ctx) => {
            const why = exportPathProblem(p);
            if (why !== null) ctx.addIssue({ code: 'custom', message: `"${p}" ${why}` });
          })
          .optional(),
      })
      .optional(),
    logs: z.looseObject({ keep_days: int.optional(), max_file_mb: int.optional() }).optional(),
    // a negative age or size has no meaning: refused at load (0 = keep every point / no size cap)
    undo: z.looseObject({ enable: z.boolean().optional(), keep_days: int.min(0).optional(), max_mb: int.min(0).optional() }).optional(),
    mcp: z.looseObject({ servers: z.array(z.record(z.string(), z.unknown())).optional() }).optional(),
    skills: z.looseObject({ enable: z.boolean().optional(), agents: z.array(z.string()).optional() }).optional(),
    tui: z.looseObject({ keybindings: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional() }).optional(),
    security: z
      .looseObject({
        allow_read: z.array(z.string()).optional(),
        shell_env_keep: z.array(z.string()).optional(),
        sandbox: z.enum(['auto', 'off']).optional(),
        sandbox_writable: z.array(z.string()).optional(),
      })
      .optional(),
    browser: z.looseObject({ enable: z.boolean().optional(), executable: z.string().optional() }).optional(),
  });
  return { RawConfigSchema, RawProviderSchema };
}

let built: ReturnType<typeof build> | undefined;

/** The raw config's zod schema (built once, at the first call). */
export function rawConfigSchema(): ReturnType<typeof build>['RawConfigSchema'] {
  return (built ??= build()).RawConfigSchema;
}

export type RawConfig = z.infer<ReturnType<typeof build>['RawConfigSchema']>;
export type RawProvider = z.infer<ReturnType<typeof build>['RawProviderSchema']>;
