// The normalised configuration every consumer reads: defaults applied, 0/absent semantics decided once.
import type { McpServerSpec } from './mcp-servers.js';
import type { TuiAction } from './keybindings.js';
export const AGENT_NAMES = ['director', 'coding', 'repo', 'chat', 'devops', 'browser', 'meta'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];
/** Tools with a model of their own, the names `[tools.llm]` takes (`compression` = context compression's tier-2
 *  summary). Any other name there is read by nothing, so it is warned at load. */
export const TOOL_LLM_NAMES = ['compression'] as const;
/** Agents with a `<name>_max_steps` key; Meta always runs its one fixed step. */
export type StepAgent = Exclude<AgentName, 'meta'>;
export type Tier = 'fast' | 'balanced' | 'high';
export type ApiFormat = 'openai' | 'anthropic';

export interface FallbackRef {
  provider: string;
  weight: number;
}

export interface ProviderConfig {
  name: string;
  model: string;
  apiBaseUrl: string;
  /** api_key, or the value of api_key_env expanded once at load. */
  apiKey: string;
  apiFormat: ApiFormat;
  /** The model's window (beats the server's and the catalogue's): the compression threshold and the TUI's context bar. */
  contextWindow: number | undefined;
  /** undefined = not set (0 in the file means not set). */
  temperature: number | undefined;
  maxTokens: number | undefined;
  reasoningEffort: string | undefined;
  fallbackProviders: FallbackRef[];
  /** api_key_env as written (error hints name the variable, never its value). */
  apiKeyEnv?: string | undefined;
}

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input tokens; absent = the input price. */
  cachedInput?: number | undefined;
}

export interface LlmSettings {
  timeoutMs: number;
  maxRetries: number;
  stepRetries: number;
  enableFallback: boolean;
  fallbackMaxRetries: number;
  /** 0 = unlimited (a meaningful zero, decided by key presence). */
  maxInFlightRequests: number;
  /** 0 = no breaker. */
  circuitBreakerThreshold: number;
  circuitBreakerCooldownMs: number;
  /** Longest one model call may take, retries and backoff included; 0 = no budget (timeout × attempts). */
  callBudgetMs: number;
  /** Silence from the server (no byte) that ends an attempt as an error, not a wait; 0 = none. */
  streamIdleTimeoutMs: number;
  /** Longest one streamed answer may be (text, reasoning and tool arguments, in characters): past it the read stops. */
  maxAnswerChars: number;
  /** [llm.prices."<model>"]: beat the catalogue's prices for the cost estimate. */
  prices: Record<string, ModelPrice>;
}

export interface YagentConfig {
  /** The file this came from. */
  path: string;
  providers: Record<string, ProviderConfig>;
  globalProvider: string;
  agentsDefaultProvider: string | undefined;
  agentProviders: Record<string, string>;
  toolsDefaultProvider: string | undefined;
  toolProviders: Record<string, string>;
  agent: {
    maxSteps: Record<StepAgent, number>;
    delegateIdleTimeoutMs: number;
    delegateTotalTimeoutMs: number;
    maxParallelReadonlyTools: number;
    maxParallelDelegations: number;
    lang: string;
  };
  llm: LlmSettings;
  routing: {
    mode: 'auto' | 'fixed';
    classifierTimeoutMs: number;
    baselines: Record<string, Tier>;
    tiers: Partial<Record<Tier, string>>;
  };
  compression: {
    enabled: boolean;
    /** undefined = not configured (the catalogue or 120000 decides). */
    threshold: number | undefined;
    /** YAGENT_COMPRESS_THRESHOLD, debug only: beats catalogue and config. */
    envOverride: number | undefined;
    toolResultKeepTokens: number;
    enableUltimate: boolean;
    ultimateKeepPlans: number;
  };
  blackboard: {
    enabled: boolean;
    /** 0 = no index injection. */
    indexMaxNotes: number;
    /** 0 = lines are not trimmed. */
    indexLineChars: number;
    /** 0 = never clean up. */
    ttlMs: number;
    summaryMaxRunes: number;
    maxNotesPerBoard: number;
  };
  resume: {
    enabled: boolean;
    replayTokenBudget: number;
    /** 0 = unlimited. */
    maxReplayMessages: number;
    /** A delegation whose checkpoint saw another workspace (HEAD, branch, its files) is handed over as C, not replayed. */
    degradeOnWorkspaceChange: boolean;
    /** Checkpoints record the workspace facts (false: nothing recorded, nothing compared; very large repositories). */
    checkpointWorkspace: boolean;
    /** Restarts of one crashed delegation actor before the Director gets a degraded report (0 = never restart). */
    maxRestarts: number;
  };
  blueprint: { enabled: boolean; injectInto: string[]; indexMaxTokens: number; proseBudgetTokens: number; exportPath: string };
  /** `[logs]`: the store's log files (`~/.yagent/logs/`). keepDays 0 = keep every file. */
  logs: { keepDays: number; maxFileBytes: number };
  /** `[undo]`: snapshots before write delegations and turns (`~/.yagent/undo/`). keepDays 0 = keep every point, maxBytes 0 = no cap. */
  undo: { enabled: boolean; keepDays: number; maxBytes: number };
  mcp: { enabled: boolean; servers: McpServerSpec[] };
  /** Which agents see the skills catalogue and use_skill. */
  skills: { enabled: boolean; agents: string[] };
  /** `[tui.keybindings]`: only the listed actions; each replaces that action's default keys. */
  tui: { keybindings: Partial<Record<TuiAction, string[]>> };
  artifact: { enabled: boolean };
  security: {
    /** `[security] allow_read`: denied zones (data root, secret stores) the read tools may read after asking. */
    allowRead: string[];
    /** `[security] shell_env_keep`: secret-looking variables run_bash's child may still see. */
    shellEnvKeep: string[];
    /** Every provider's api_key_env (not a key of its own): run_bash's child never sees these. */
    keyEnvNames: string[];
    /** `[security] sandbox`: "auto" runs run_bash under bubblewrap where it works; "off" never. */
    sandbox: 'auto' | 'off';
    /** `[security] sandbox_writable`: places outside the workspace run_bash may write in the sandbox (`~` allowed). */
    sandboxWritable: string[];
  };
  /** `[browser]`: the Browser agent's Chromium/Chrome. `executable` '' = look on PATH (actors/browser/discover.ts). */
  browser: { enabled: boolean; executable: string };
  /** Human warnings gathered at load (removed keys with their replacement, unknown values). */
  warnings: string[];
}
