// Raw TOML → YagentConfig: defaults, 0/absent semantics, env kill switches applied here (not at call sites).
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parseDuration } from './duration.js';
import * as envSwitch from './env.js';
import { ConfigError } from './errors.js';
import { parseKeybindings } from './keybindings.js';
import { concurrencyKnob, defaultTrue, DEFAULTS, positiveOr, valve, zeroIsUnset } from './knobs.js';
import { parseMcpServers, SKILL_DEFAULT_AGENTS } from './mcp-servers.js';
import { removedKeyWarnings } from './removed-keys.js';
import { reservedKeyWarnings } from './reserved-keys.js';
import { unknownKeyWarnings } from './unknown-keys.js';
import type { RawConfig, RawProvider } from './schema.js';
import type { FallbackRef, ProviderConfig, StepAgent, YagentConfig } from './types.js';

const MAX_STEPS: Record<StepAgent, number> = { director: 100, coding: 150, repo: 50, chat: 50, devops: 50, browser: 200 };

function duration(v: string | number | undefined, dflt: number, path: string, key: string): number {
  if (v === undefined) return dflt;
  const ms = parseDuration(v);
  if (ms === null) throw new ConfigError(`"${String(v)}" is not a duration`, `${path}: ${key}`, 'write it like "60s", "20m" or "1h30m"');
  return ms;
}

function provider(name: string, raw: RawProvider, env: envSwitch.Env): ProviderConfig {
  const fromEnv = raw.api_key_env !== undefined && raw.api_key_env !== '' ? env[raw.api_key_env] : undefined;
  const fallbacks: FallbackRef[] = (raw.fallback_providers ?? []).map((f) =>
    typeof f === 'string' ? { provider: f, weight: 1 } : { provider: f.provider, weight: f.weight ?? 1 },
  );
  return {
    name,
    model: raw.model ?? '',
    apiBaseUrl: raw.api_base_url ?? '',
    apiKey: raw.api_key !== undefined && raw.api_key !== '' ? raw.api_key : (fromEnv ?? ''),
    apiFormat: raw.api_format ?? 'openai',
    contextWindow: zeroIsUnset(raw.context_window),
    temperature: zeroIsUnset(raw.temperature),
    maxTokens: zeroIsUnset(raw.max_tokens),
    reasoningEffort: raw.reasoning_effort === '' ? undefined : raw.reasoning_effort,
    fallbackProviders: fallbacks,
    ...(raw.api_key_env !== undefined && raw.api_key_env !== '' ? { apiKeyEnv: raw.api_key_env } : {}),
  };
}

function useProviderMap(section: Record<string, unknown> | undefined): { dflt: string | undefined; per: Record<string, string> } {
  const per: Record<string, string> = {};
  let dflt: string | undefined;
  for (const [k, v] of Object.entries(section ?? {})) {
    if (k === 'use_provider' && typeof v === 'string') dflt = v;
    else if (typeof v === 'object' && v !== null && typeof (v as { use_provider?: unknown }).use_provider === 'string') {
      per[k] = (v as { use_provider: string }).use_provider;
    }
  }
  return { dflt, per };
}

export function normalise(raw: RawConfig, path: string, env: envSwitch.Env): YagentConfig {
  const warnings = [...removedKeyWarnings(raw), ...unknownKeyWarnings(raw), ...reservedKeyWarnings(raw)];
  const providers: Record<string, ProviderConfig> = {};
  for (const [name, p] of Object.entries(raw.global?.llm?.providers ?? {})) providers[name] = provider(name, p, env);
  const agents = useProviderMap(raw.agents?.llm);
  const tools = useProviderMap(raw.tools?.llm);
  const a = raw.agent ?? {};
  const serial = envSwitch.concurrencyDisabled(env);
  const maxSteps = { ...MAX_STEPS };
  for (const n of Object.keys(MAX_STEPS) as StepAgent[]) maxSteps[n] = positiveOr(a[`${n}_max_steps`], MAX_STEPS[n]);
  const llm = raw.llm ?? {};
  const ec = raw.enhanced_commander ?? {};
  const bb = raw.blackboard ?? {};
  const rs = raw.resume ?? {};
  const bp = raw.blueprint ?? {};
  const degrade = rs.degrade_on_workspace_change;
  if (typeof degrade === 'string') {
    warnings.push(`[resume] degrade_on_workspace_change = "${degrade}" is not true|false: using true (a resume onto a changed workspace hands over a report)`);
  }
  const ttl = bb.ttl === undefined ? DEFAULTS.ttlMs : duration(bb.ttl, DEFAULTS.ttlMs, path, 'blackboard.ttl');
  return {
    path,
    providers,
    globalProvider: raw.global?.llm?.use_provider ?? '',
    agentsDefaultProvider: agents.dflt,
    agentProviders: agents.per,
    toolsDefaultProvider: tools.dflt,
    toolProviders: tools.per,
    agent: {
      maxSteps,
      delegateIdleTimeoutMs: duration(a.delegate_idle_timeout, 60_000, path, 'agent.delegate_idle_timeout'),
      delegateTotalTimeoutMs: duration(a.delegate_total_timeout, 20 * 60_000, path, 'agent.delegate_total_timeout'),
      maxParallelReadonlyTools: serial ? 1 : concurrencyKnob(a.max_parallel_readonly_tools, DEFAULTS.maxParallelReadonlyTools),
      maxParallelDelegations: serial ? 1 : concurrencyKnob(a.max_parallel_delegations, DEFAULTS.maxParallelDelegations),
      lang: a.lang ?? 'English',
    },
    llm: {
      timeoutMs: duration(llm.timeout, 300_000, path, 'llm.timeout'),
      maxRetries: llm.max_retries === undefined || llm.max_retries < 0 ? 5 : llm.max_retries,
      stepRetries: llm.step_retries === undefined || llm.step_retries < 0 ? 2 : llm.step_retries,
      enableFallback: defaultTrue(llm, 'enable_fallback'),
      fallbackMaxRetries: llm.fallback_max_retries === undefined || llm.fallback_max_retries < 0 ? 2 : llm.fallback_max_retries,
      maxInFlightRequests: valve(llm, 'max_in_flight_requests', DEFAULTS.maxInFlightRequests),
      circuitBreakerThreshold: Math.max(0, llm.circuit_breaker_threshold ?? 0),
      circuitBreakerCooldownMs: duration(llm.circuit_breaker_cooldown, 30_000, path, 'llm.circuit_breaker_cooldown'),
      callBudgetMs: duration(llm.call_budget, 120_000, path, 'llm.call_budget'),
      streamIdleTimeoutMs: duration(llm.stream_idle_timeout, 60_000, path, 'llm.stream_idle_timeout'),
      maxAnswerChars: positiveOr(llm.max_answer_chars, 1_000_000),
      prices: Object.fromEntries(
        Object.entries(llm.prices ?? {}).map(([m, p]) => [m, { input: p.input, output: p.output, ...(p.cached_input !== undefined ? { cachedInput: p.cached_input } : {}) }]),
      ),
    },
    routing: {
      mode: raw.routing?.mode ?? 'auto',
      classifierTimeoutMs: duration(raw.routing?.classifier_timeout, 30_000, path, 'routing.classifier_timeout'),
      baselines: { ...(raw.routing?.baselines ?? {}) },
      tiers: {
        ...(raw.routing?.tiers?.fast !== undefined ? { fast: raw.routing.tiers.fast } : {}),
        ...(raw.routing?.tiers?.balanced !== undefined ? { balanced: raw.routing.tiers.balanced } : {}),
        ...(raw.routing?.tiers?.high !== undefined ? { high: raw.routing.tiers.high } : {}),
      },
    },
    compression: {
      enabled: defaultTrue(ec, 'enable_context_compression'),
      threshold: ec.context_compression_threshold !== undefined && ec.context_compression_threshold > 0 ? ec.context_compression_threshold : undefined,
      envOverride: envSwitch.compressThresholdOverride(env),
      toolResultKeepTokens: positiveOr(ec.tool_result_keep_tokens, 200),
      enableUltimate: defaultTrue(ec, 'enable_ultimate_compression'),
      ultimateKeepPlans: valve(ec, 'ultimate_compression_keep_plans', 3),
    },
    blackboard: {
      enabled: !envSwitch.blackboardDisabled(env),
      indexMaxNotes: valve(bb, 'index_max_notes', DEFAULTS.indexMaxNotes),
      indexLineChars: valve(bb, 'index_line_chars', DEFAULTS.indexLineChars),
      ttlMs: ttl,
      summaryMaxRunes: positiveOr(bb.summary_max_runes, DEFAULTS.summaryMaxRunes),
      maxNotesPerBoard: positiveOr(bb.max_notes_per_board, DEFAULTS.maxNotesPerBoard),
    },
    resume: {
      enabled: !envSwitch.resumeDisabled(env) && defaultTrue(rs, 'enable'),
      replayTokenBudget: Math.max(0, rs.replay_token_budget ?? 0),
      maxReplayMessages: valve(rs, 'max_replay_messages', DEFAULTS.maxReplayMessages),
      degradeOnWorkspaceChange: typeof degrade === 'boolean' ? degrade : true,
      checkpointWorkspace: defaultTrue(rs, 'checkpoint_workspace'),
      maxRestarts: rs.max_restarts === undefined || rs.max_restarts < 0 ? 2 : rs.max_restarts,
    },
    blueprint: {
      enabled: !envSwitch.blueprintDisabled(env) && defaultTrue(bp, 'enable'),
      injectInto: bp.inject_into ?? ['director', 'repo'],
      indexMaxTokens: positiveOr(bp.index_max_tokens, 800),
      proseBudgetTokens: positiveOr(bp.prose_budget_tokens, 2000),
      exportPath: bp.export_path ?? '',
    },
    logs: { keepDays: valve(raw.logs, 'keep_days', DEFAULTS.logKeepDays), maxFileBytes: positiveOr(raw.logs?.max_file_mb, DEFAULTS.logMaxFileMb) * 1024 * 1024 },
    undo: { enabled: defaultTrue(raw.undo, 'enable'), keepDays: valve(raw.undo, 'keep_days', DEFAULTS.undoKeepDays), maxBytes: valve(raw.undo, 'max_mb', DEFAULTS.undoMaxMb) * 1024 * 1024 },
    mcp: { enabled: !envSwitch.mcpDisabled(env), servers: parseMcpServers(raw.mcp?.servers ?? [], path) },
    skills: { enabled: !envSwitch.skillsDisabled(env) && defaultTrue(raw.skills, 'enable'), agents: raw.skills?.agents ?? [...SKILL_DEFAULT_AGENTS] },
    artifact: { enabled: !envSwitch.artifactDisabled(env) },
    tui: { keybindings: parseKeybindings(raw.tui?.keybindings, path) },
    security: {
      allowRead: raw.security?.allow_read ?? [],
      shellEnvKeep: raw.security?.shell_env_keep ?? [],
      keyEnvNames: Object.values(raw.global?.llm?.providers ?? {}).flatMap((p) => (p.api_key_env ? [p.api_key_env] : [])),
      sandbox: raw.security?.sandbox ?? 'auto',
      sandboxWritable: raw.security?.sandbox_writable ?? [],
    },
    browser: { enabled: defaultTrue(raw.browser, 'enable'), executable: browserExecutable(raw.browser?.executable, path, env) },
    warnings: [...new Set(warnings)],
  };
}

/** `[browser] executable`: an absolute path, `~/…`, or a bare command name looked up on PATH. A relative path
 *  would depend on the process's cwd (seeds pitfall 8), so it is a configuration error, never guessed. */
function browserExecutable(v: string | undefined, path: string, env: envSwitch.Env): string {
  const exe = (v ?? '').trim();
  if (exe === '') return '';
  if (exe === '~' || exe.startsWith('~/')) return join(env['HOME'] ?? homedir(), exe.slice(1));
  if (isAbsolute(exe) || !exe.includes('/')) return exe;
  throw new ConfigError(`"${exe}" is a relative path`, `${path}: browser.executable`, 'write an absolute path (e.g. "/usr/bin/chromium") or a command name on PATH (e.g. "chromium")');
}
