// One test per configuration rule, plus a table proving every key's value changes the loaded config.
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REMOVED_KEYS,
  artifactDisabled,
  blackboardDisabled,
  blueprintDisabled,
  compressThresholdOverride,
  concurrencyDisabled,
  mcpDisabled,
  resolveProviderName,
  resumeDisabled,
  skillsDisabled,
  type YagentConfig,
} from '../../src/runtime/config/index.js';
import { cfg } from './helpers.js';

const P = (name: string) => `[global.llm.providers.${name}]\nmodel = "m-${name}"\napi_base_url = "http://u/v1"\napi_key = "k"\n`;

describe('provider resolution', () => {
  it('tool → tools.llm → agent → agents.llm → global.llm, each level winning over the next', () => {
    const c = cfg(
      `${P('t1')}${P('tall')}${P('a1')}${P('aall')}[tools.llm]\nuse_provider = "tall"\nmicro_agent.use_provider = "t1"\n[agents.llm]\nuse_provider = "aall"\ncoding.use_provider = "a1"\n`,
    );
    expect(resolveProviderName(c, { tool: 'micro_agent', agent: 'coding' })).toBe('t1');
    expect(resolveProviderName(c, { tool: 'thinking', agent: 'coding' })).toBe('tall');
    expect(resolveProviderName(c, { agent: 'coding' })).toBe('a1');
    expect(resolveProviderName(c, { agent: 'repo' })).toBe('aall');
    const g = cfg(`${P('a1')}[agents.llm]\ncoding.use_provider = "a1"\n`);
    expect(resolveProviderName(g, { agent: 'repo' })).toBe('main');
    expect(resolveProviderName(g, { tool: 'thinking', agent: 'coding' })).toBe('a1');
  });
});

describe('value conventions', () => {
  it('0 means not set for temperature and max_tokens', () => {
    const c = cfg(`${P('z').replace('api_key = "k"', 'api_key = "k"\ntemperature = 0\nmax_tokens = 0')}`);
    expect(c.providers['z']?.temperature).toBeUndefined();
    expect(c.providers['z']?.maxTokens).toBeUndefined();
  });

  it('concurrency knobs: 1 = serial, <= 0 = default, > 8 clamped to 8', () => {
    const knob = (v: number) => cfg(`[agent]\nmax_parallel_readonly_tools = ${v}\nmax_parallel_delegations = ${v}`).agent;
    expect(knob(1)).toMatchObject({ maxParallelReadonlyTools: 1, maxParallelDelegations: 1 });
    expect(knob(0)).toMatchObject({ maxParallelReadonlyTools: 4, maxParallelDelegations: 2 });
    expect(knob(-3)).toMatchObject({ maxParallelReadonlyTools: 4, maxParallelDelegations: 2 });
    expect(knob(50)).toMatchObject({ maxParallelReadonlyTools: 8, maxParallelDelegations: 8 });
  });

  it('valves are decided by key presence: written 0 has a meaning, absent or negative is the default', () => {
    const zero = cfg('[llm]\nmax_in_flight_requests = 0\n[resume]\nmax_replay_messages = 0\n[blackboard]\nindex_max_notes = 0\nindex_line_chars = 0\nttl = "0"');
    expect(zero.llm.maxInFlightRequests).toBe(0);
    expect(zero.resume.maxReplayMessages).toBe(0);
    expect(zero.blackboard).toMatchObject({ indexMaxNotes: 0, indexLineChars: 0, ttlMs: 0 });
    const absent = cfg();
    expect(absent.llm.maxInFlightRequests).toBe(8);
    expect(absent.resume.maxReplayMessages).toBe(2000);
    expect(absent.blackboard).toMatchObject({ indexMaxNotes: 12, indexLineChars: 160, ttlMs: 168 * 3_600_000 });
    const negative = cfg('[llm]\nmax_in_flight_requests = -1\n[blackboard]\nindex_max_notes = -5');
    expect(negative.llm.maxInFlightRequests).toBe(8);
    expect(negative.blackboard.indexMaxNotes).toBe(12);
    expect(cfg('[blackboard]\nttl = 0').blackboard.ttlMs).toBe(0);
  });

  it('booleans default to true by key presence; only a written false turns them off', () => {
    const flags = (c: YagentConfig) => [c.compression.enabled, c.compression.enableUltimate, c.llm.enableFallback, c.resume.enabled, c.resume.checkpointWorkspace, c.blueprint.enabled, c.skills.enabled];
    expect(flags(cfg())).toEqual(Array(7).fill(true));
    // the section present but the key absent is still "not written"
    expect(flags(cfg('[enhanced_commander]\n[llm]\n[resume]\n[blueprint]\n[skills]'))).toEqual(Array(7).fill(true));
    const off = cfg('[enhanced_commander]\nenable_context_compression = false\nenable_ultimate_compression = false\n[llm]\nenable_fallback = false\n[resume]\nenable = false\ncheckpoint_workspace = false\n[blueprint]\nenable = false\n[skills]\nenable = false');
    expect(flags(off)).toEqual(Array(7).fill(false));
  });

  it('removed keys are named at load with their replacement (every registry entry fires)', () => {
    const docs: Record<string, string> = {
      'blackboard.enabled': '[blackboard]\nenabled = true',
      'resume.enabled': '[resume]\nenabled = true',
      'enhanced_commander.enable_knowledge_injection': '[enhanced_commander]\nenable_knowledge_injection = true',
      memory: '[memory]\nx = 1',
      'compression.enabled': '[compression]\nenabled = true',
      'global.llm.providers.*.aws_region': '[global.llm.providers.b]\naws_region = "us-east-1"',
      'global.llm.providers.*.bedrock': '[global.llm.providers.b]\nbedrock = true',
      'llm.context_window': '[llm]\ncontext_window = 1',
      'agent.meta_max_steps': '[agent]\nmeta_max_steps = 5',
    };
    expect(Object.keys(docs).sort()).toEqual(REMOVED_KEYS.map((k) => k.path).sort());
    for (const k of REMOVED_KEYS) {
      const w = cfg(docs[k.path]).warnings;
      expect(w.some((x) => x.includes(k.path) && x.includes(k.hint))).toBe(true);
    }
    expect(cfg().warnings).toEqual([]);
  });

  it('degrade_on_workspace_change is true|false (default true); a string (the old warn|block) warns and is true', () => {
    expect(cfg().resume.degradeOnWorkspaceChange).toBe(true);
    expect(cfg('[resume]\ndegrade_on_workspace_change = false').resume.degradeOnWorkspaceChange).toBe(false);
    const c = cfg('[resume]\ndegrade_on_workspace_change = "warn"');
    expect(c.resume.degradeOnWorkspaceChange).toBe(true);
    expect(c.warnings.join()).toMatch(/degrade_on_workspace_change = "warn" is not true\|false/);
    expect(() => cfg('[resume]\ndegrade_on_workspace_change = 3')).toThrow(/degrade_on_workspace_change/);
  });
});

describe('env kill switches (one function each, applied inside normalisation)', () => {
  it.each([
    ['YAGENT_CONCURRENCY', '0', concurrencyDisabled, (c: YagentConfig) => c.agent.maxParallelDelegations === 1 && c.agent.maxParallelReadonlyTools === 1],
    ['YAGENT_BLACKBOARD', '0', blackboardDisabled, (c: YagentConfig) => !c.blackboard.enabled],
    ['YAGENT_RESUME', '0', resumeDisabled, (c: YagentConfig) => !c.resume.enabled],
    ['YAGENT_MCP', '0', mcpDisabled, (c: YagentConfig) => !c.mcp.enabled],
    ['YAGENT_SKILLS', '0', skillsDisabled, (c: YagentConfig) => !c.skills.enabled],
    ['YAGENT_BLUEPRINT', '0', blueprintDisabled, (c: YagentConfig) => !c.blueprint.enabled],
    ['YAGENT_ARTIFACT_DISABLE', '1', artifactDisabled, (c: YagentConfig) => !c.artifact.enabled],
  ] as const)('%s=%s', (name, value, fn, applied) => {
    expect(fn({ [name]: value })).toBe(true);
    expect(fn({})).toBe(false);
    expect(fn({ [name]: 'yes' })).toBe(false);
    expect(applied(cfg('', { [name]: value }))).toBe(true);
    expect(applied(cfg('', {}))).toBe(false);
  });

  it('each kill switch is read in exactly one function (env.ts); reads elsewhere are a shrinking pending list', () => {
    const SWITCHES = ['YAGENT_CONCURRENCY', 'YAGENT_BLACKBOARD', 'YAGENT_RESUME', 'YAGENT_MCP', 'YAGENT_SKILLS', 'YAGENT_BLUEPRINT', 'YAGENT_ARTIFACT_DISABLE', 'YAGENT_COMPRESS_THRESHOLD'];
    // may only shrink: the store's own YAGENT_BLACKBOARD read is gone (it calls blackboardDisabled)
    const PENDING: string[] = [];
    const read = new RegExp(`\\benv(?:\\.|\\[\\s*['"])(${SWITCHES.join('|')})\\b`, 'g');
    const files = ['src', 'bin'].flatMap((d) => readdirSync(d, { recursive: true, encoding: 'utf8' }).map((f) => join(d, f))).filter((f) => f.endsWith('.ts'));
    const reads = files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(read)].map((m) => `${f.split(sep).join('/')} ${m[1] ?? ''}`));
    const inEnv = reads.filter((r) => r.startsWith('src/runtime/config/env.ts ')).map((r) => r.split(' ')[1]);
    expect(inEnv.sort()).toEqual([...SWITCHES].sort());
    expect(reads.filter((r) => !r.startsWith('src/runtime/config/env.ts ')).sort()).toEqual(PENDING);
  });

  it('YAGENT_COMPRESS_THRESHOLD accepts a positive integer only', () => {
    expect(compressThresholdOverride({ YAGENT_COMPRESS_THRESHOLD: '5000' })).toBe(5000);
    expect(compressThresholdOverride({ YAGENT_COMPRESS_THRESHOLD: 'lots' })).toBeUndefined();
    expect(compressThresholdOverride({})).toBeUndefined();
    expect(cfg('', { YAGENT_COMPRESS_THRESHOLD: '5000' }).compression.envOverride).toBe(5000);
  });
});

/** [section, key=value A, key=value B, what the loaded config exposes]: A and B must load differently. */
const KEYS: [string, string, string, (c: YagentConfig) => unknown][] = [
  ['global.llm.providers.main', 'context_window = 1000', 'context_window = 2000', (c) => c.providers['main']?.contextWindow],
  ['global.llm.providers.main', 'temperature = 0.2', 'temperature = 0.9', (c) => c.providers['main']?.temperature],
  ['global.llm.providers.main', 'max_tokens = 100', 'max_tokens = 200', (c) => c.providers['main']?.maxTokens],
  ['global.llm.providers.main', 'reasoning_effort = "low"', 'reasoning_effort = "high"', (c) => c.providers['main']?.reasoningEffort],
  ['global.llm.providers.main', 'api_format = "openai"', 'api_format = "anthropic"', (c) => c.providers['main']?.apiFormat],
  ...(['director', 'coding', 'repo', 'chat', 'devops', 'browser'] as const).map(
    (a): [string, string, string, (c: YagentConfig) => unknown] => ['agent', `${a}_max_steps = 7`, `${a}_max_steps = 9`, (c) => c.agent.maxSteps[a]],
  ),
  ['agent', 'delegate_idle_timeout = "10s"', 'delegate_idle_timeout = "20s"', (c) => c.agent.delegateIdleTimeoutMs],
  ['agent', 'delegate_total_timeout = "10m"', 'delegate_total_timeout = "1h"', (c) => c.agent.delegateTotalTimeoutMs],
  ['agent', 'lang = "Chinese"', 'lang = "English"', (c) => c.agent.lang],
  ['llm', 'timeout = "10s"', 'timeout = "20s"', (c) => c.llm.timeoutMs],
  ['llm', 'max_retries = 1', 'max_retries = 2', (c) => c.llm.maxRetries],
  ['llm', 'step_retries = 1', 'step_retries = 3', (c) => c.llm.stepRetries],
  ['llm', 'fallback_max_retries = 0', 'fallback_max_retries = 4', (c) => c.llm.fallbackMaxRetries],
  ['llm', 'circuit_breaker_threshold = 0', 'circuit_breaker_threshold = 3', (c) => c.llm.circuitBreakerThreshold],
  ['llm', 'circuit_breaker_cooldown = "5s"', 'circuit_breaker_cooldown = "9s"', (c) => c.llm.circuitBreakerCooldownMs],
  ['routing', 'mode = "auto"', 'mode = "fixed"', (c) => c.routing.mode],
  ['routing', 'classifier_timeout = "5s"', 'classifier_timeout = "30s"', (c) => c.routing.classifierTimeoutMs],
  ['routing.baselines', 'coding = "high"', 'coding = "fast"', (c) => c.routing.baselines['coding']],
  ['enhanced_commander', 'context_compression_threshold = 5000', 'context_compression_threshold = 9000', (c) => c.compression.threshold],
  ['enhanced_commander', 'tool_result_keep_tokens = 100', 'tool_result_keep_tokens = 300', (c) => c.compression.toolResultKeepTokens],
  ['enhanced_commander', 'enable_ultimate_compression = true', 'enable_ultimate_compression = false', (c) => c.compression.enableUltimate],
  ['enhanced_commander', 'ultimate_compression_keep_plans = 0', 'ultimate_compression_keep_plans = 5', (c) => c.compression.ultimateKeepPlans],
  ['blackboard', 'summary_max_runes = 100', 'summary_max_runes = 200', (c) => c.blackboard.summaryMaxRunes],
  ['blackboard', 'max_notes_per_board = 10', 'max_notes_per_board = 20', (c) => c.blackboard.maxNotesPerBoard],
  ['resume', 'replay_token_budget = 0', 'replay_token_budget = 900', (c) => c.resume.replayTokenBudget],
  ['blueprint', 'inject_into = ["repo"]', 'inject_into = ["director"]', (c) => c.blueprint.injectInto],
  ['blueprint', 'index_max_tokens = 100', 'index_max_tokens = 200', (c) => c.blueprint.indexMaxTokens],
  ['blueprint', 'prose_budget_tokens = 100', 'prose_budget_tokens = 200', (c) => c.blueprint.proseBudgetTokens],
  ['blueprint', 'export_path = "a.md"', 'export_path = "b.md"', (c) => c.blueprint.exportPath],
  ['skills', 'enable = true', 'enable = false', (c) => c.skills.enabled],
];

describe('every key changes what is loaded', () => {
  it.each(KEYS)('[%s] %s vs %s', (section, a, b, get) => {
    // provider keys go into the main provider's own table, which BASE leaves open
    const load = (line: string) => (section === 'global.llm.providers.main' ? cfg(line) : cfg(`[${section}]\n${line}`));
    expect(get(load(a))).not.toEqual(get(load(b)));
  });

  it('[mcp] servers reach the config; YAGENT_MCP=0 keeps them but disables the feature', () => {
    const c = cfg('[[mcp.servers]]\nname = "fs"\ncommand = "mcp-fs"\nargs = ["."]\nstartup_timeout = "5s"');
    expect(c.mcp.servers).toEqual([
      { name: 'fs', transport: 'stdio', command: 'mcp-fs', args: ['.'], env: {}, headers: {}, agents: ['coding', 'repo', 'devops'], allowWrite: false, startupTimeoutMs: 5000, toolTimeoutMs: 60_000 },
    ]);
    expect(cfg('[[mcp.servers]]\nname = "fs"\ncommand = "x"', { YAGENT_MCP: '0' }).mcp.enabled).toBe(false);
  });

  it('[[mcp.servers]] entries are validated at load: each mistake is a three-line config error naming the server', () => {
    expect(() => cfg('[[mcp.servers]]\nname = "fs"')).toThrow(/exactly one of command or url/);
    expect(() => cfg('[[mcp.servers]]\nname = "web"\nurl = "ftp://x"')).toThrow(/not an http\(s\) URL/);
    expect(() => cfg('[[mcp.servers]]\nname = "a b"\ncommand = "x"')).toThrow(/must be 1-40 letters/);
    expect(() => cfg('[[mcp.servers]]\nname = "x"\ncommand = "x"\n[[mcp.servers]]\nname = "x"\ncommand = "y"')).toThrow(/defined twice/);
    expect(() => cfg('[[mcp.servers]]\nname = "x"\ncommand = "x"\ncomand = "typo"')).toThrow(/comand/);
    expect(cfg('[[mcp.servers]]\nname = "off"\ncommand = "x"\nenabled = false').mcp.servers).toEqual([]);
  });
});
