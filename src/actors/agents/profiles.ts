// Every agent's loop flags, stated in full per agent: no hidden central default (pitfall 16).

export type BuiltinAgent = 'director' | 'coding' | 'repo' | 'chat' | 'devops' | 'browser' | 'meta';
export const BUILTIN_AGENTS: readonly BuiltinAgent[] = ['director', 'coding', 'repo', 'chat', 'devops', 'browser', 'meta'];
/** Sub-agents the Director can delegate to by a built-in `delegate_<name>` tool. */
export const DELEGATE_TARGETS: readonly BuiltinAgent[] = ['repo', 'coding', 'chat', 'devops', 'browser', 'meta'];

export interface LoopFlags {
  /** agent_exit ends the loop at once (false: the exit is acknowledged and the loop goes on). */
  stopOnFinish: boolean;
  /** Loop-level retries of a failed LLM call within one step (the engine retries transport on its own). */
  stepRetries: number;
  /** Plain-text replies answered with a reminder before the loop ends with `plain_text`. */
  noActionRetryLimit: number;
  /** Read-only tool calls run together per batch (1 = serial). */
  maxParallelReadOnlyTools: number;
  maxSteps: number;
  /** A reply with tool calls but no valid <thought> block is recorded as a format failure. */
  requireThought: boolean;
}

export const FLAG_KEYS: readonly (keyof LoopFlags)[] = [
  'stopOnFinish',
  'stepRetries',
  'noActionRetryLimit',
  'maxParallelReadOnlyTools',
  'maxSteps',
  'requireThought',
];

export const AGENT_FLAGS: Readonly<Record<BuiltinAgent | 'custom', LoopFlags>> = {
  // Director: an un-delegated answer claiming work is reminded once (the seeds' quota is 3: AGENTS.md), then plain_text.
  director: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 1, maxParallelReadOnlyTools: 4, maxSteps: 100, requireThought: true },
  coding: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 2, maxParallelReadOnlyTools: 4, maxSteps: 150, requireThought: true },
  repo: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 2, maxParallelReadOnlyTools: 4, maxSteps: 50, requireThought: false },
  // Chat's plain reply is its answer: no reminder.
  chat: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 0, maxParallelReadOnlyTools: 1, maxSteps: 50, requireThought: false },
  devops: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 2, maxParallelReadOnlyTools: 4, maxSteps: 50, requireThought: false },
  // Browser: one page, so its actions run one at a time; up to 200 steps (clicking through a site takes many).
  browser: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 2, maxParallelReadOnlyTools: 1, maxSteps: 200, requireThought: true },
  // Meta answers once with JSON; its retries (up to 5) are validation retries in meta.ts, not loop steps.
  meta: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 0, maxParallelReadOnlyTools: 1, maxSteps: 1, requireThought: false },
  custom: { stopOnFinish: true, stepRetries: 2, noActionRetryLimit: 1, maxParallelReadOnlyTools: 4, maxSteps: 15, requireThought: false },
};

/** Config overrides (`[agent] <name>_max_steps`, `max_parallel_readonly_tools`, `[llm] step_retries`); unset keys keep the agent's own value. */
export interface FlagOverrides {
  maxSteps?: Partial<Record<string, number>>;
  maxParallelReadOnlyTools?: number;
  /** `[llm] step_retries`: one value for every agent (0 = a failed step ends the run at once). */
  stepRetries?: number;
}

export function flagsFor(agent: string, overrides: FlagOverrides = {}): LoopFlags {
  const base = isBuiltin(agent) ? AGENT_FLAGS[agent] : AGENT_FLAGS.custom;
  const steps = overrides.maxSteps?.[agent];
  const par = overrides.maxParallelReadOnlyTools;
  const retries = overrides.stepRetries;
  return {
    ...base,
    stepRetries: retries !== undefined && retries >= 0 ? retries : base.stepRetries,
    // Custom agents always run with 15 steps; config knobs exist only for the built-in roles.
    maxSteps: isBuiltin(agent) && agent !== 'meta' && steps !== undefined && steps > 0 ? steps : base.maxSteps,
    maxParallelReadOnlyTools: par !== undefined && par > 0 ? Math.min(8, par) : base.maxParallelReadOnlyTools,
  };
}

/** `-d` values (comma lists, `all`) → the disabled delegation targets, in a fixed order; unknown names throw. */
export function resolveDisabledAgents(names: readonly string[]): BuiltinAgent[] {
  const off = new Set<string>();
  for (const raw of names.flatMap((n) => n.split(','))) {
    const n = raw.trim().toLowerCase();
    if (n === '') continue;
    if (n === 'all') DELEGATE_TARGETS.forEach((t) => off.add(t));
    else if ((DELEGATE_TARGETS as readonly string[]).includes(n)) off.add(n);
    else throw new Error(`-d/--disable-agents: unknown agent "${raw.trim()}" (choose from ${DELEGATE_TARGETS.join(', ')}, or all)`);
  }
  return DELEGATE_TARGETS.filter((t) => off.has(t));
}

export function isBuiltin(agent: string): agent is BuiltinAgent {
  return (BUILTIN_AGENTS as readonly string[]).includes(agent);
}
