// The raw config's shape as plain data, with no zod (issue 29: the main thread checks a new `-p` task's config
// before it pre-sends the Director's first request, and building the zod schema cost more than the whole check).
// `quickRawCheck` is CONSERVATIVE: it accepts only a document the zod schema (schema.ts) accepts, and returns what
// zod's parse returns (plain objects, known keys in schema order, then the others); anything it is unsure of (a type
// error, a TOML date, a huge integer) is null and the caller runs the zod schema, whose error is the one reported.
// Pinned against schema.ts: test/config/quick-check.test.ts (accepts ⇒ zod accepts, same data) and keys.test.ts.
import { exportPathProblem } from './blueprint-export.js';
import type { RawConfig } from './schema.js';

export type Spec =
  | { k: 'str' }
  | { k: 'num'; min?: number; above?: number }
  | { k: 'int'; min?: number }
  | { k: 'bool' }
  | { k: 'unknown' }
  | { k: 'exportPath' }
  | { k: 'enum'; values: readonly string[] }
  | { k: 'union'; of: readonly Spec[] }
  | { k: 'arr'; of: Spec }
  | { k: 'rec'; of: Spec }
  /** loose: unknown keys pass through (z.looseObject); else dropped (z.object). Keys are optional unless required. */
  | { k: 'obj'; shape: Readonly<Record<string, Spec>>; loose: boolean; required?: readonly string[] };

const str: Spec = { k: 'str' };
const num: Spec = { k: 'num' };
const int: Spec = { k: 'int' };
const bool: Spec = { k: 'bool' };
const dur: Spec = { k: 'union', of: [str, num] };
const loose = (shape: Record<string, Spec>): Spec => ({ k: 'obj', shape, loose: true });
const rec = (of: Spec): Spec => ({ k: 'rec', of });
const arr = (of: Spec): Spec => ({ k: 'arr', of });
const oneOf = (...values: string[]): Spec => ({ k: 'enum', values });
const useProvider: Spec = { k: 'union', of: [str, loose({ use_provider: str })] };
const nonneg: Spec = { k: 'num', min: 0 };

export const PROVIDER_SPEC = loose({
  model: str,
  api_base_url: str,
  api_key: str,
  api_key_env: str,
  context_window: int,
  temperature: num,
  max_tokens: int,
  reasoning_effort: str,
  api_format: oneOf('openai', 'anthropic'),
  fallback_providers: arr({ k: 'union', of: [str, { k: 'obj', shape: { provider: str, weight: { k: 'num', above: 0 } }, loose: false, required: ['provider'] }] }),
}) as Extract<Spec, { k: 'obj' }>;

/** RawConfigSchema (schema.ts), key for key. */
export const RAW_SPEC: Spec = loose({
  global: loose({ llm: loose({ use_provider: str, providers: rec(PROVIDER_SPEC) }) }),
  agents: loose({ llm: rec(useProvider) }),
  tools: loose({ llm: rec(useProvider) }),
  agent: loose({
    director_max_steps: int, coding_max_steps: int, repo_max_steps: int, chat_max_steps: int, devops_max_steps: int, browser_max_steps: int,
    delegate_idle_timeout: dur, delegate_total_timeout: dur, max_parallel_readonly_tools: int, max_parallel_delegations: int, lang: str,
  }),
  llm: loose({
    timeout: dur, max_retries: int, step_retries: int, enable_fallback: bool, fallback_max_retries: int, max_in_flight_requests: int,
    circuit_breaker_threshold: int, circuit_breaker_cooldown: dur, call_budget: dur, stream_idle_timeout: dur, max_answer_chars: int,
    prices: rec({ k: 'obj', shape: { input: nonneg, output: nonneg, cached_input: nonneg }, loose: true, required: ['input', 'output'] }),
  }),
  routing: loose({ mode: oneOf('auto', 'fixed'), classifier_timeout: dur, baselines: rec(oneOf('fast', 'balanced', 'high')), tiers: loose({ fast: str, balanced: str, high: str }) }),
  enhanced_commander: loose({ enable_context_compression: bool, context_compression_threshold: int, tool_result_keep_tokens: int, enable_ultimate_compression: bool, ultimate_compression_keep_plans: int }),
  blackboard: loose({ index_max_notes: int, index_line_chars: int, ttl: dur, summary_max_runes: int, max_notes_per_board: int }),
  resume: loose({ enable: bool, replay_token_budget: int, max_replay_messages: int, degrade_on_workspace_change: { k: 'union', of: [bool, str] }, checkpoint_workspace: bool, max_restarts: int }),
  blueprint: loose({ enable: bool, inject_into: arr(str), index_max_tokens: int, prose_budget_tokens: int, export_path: { k: 'exportPath' } }),
  logs: loose({ keep_days: int, max_file_mb: int }),
  undo: loose({ enable: bool, keep_days: { k: 'int', min: 0 }, max_mb: { k: 'int', min: 0 } }),
  mcp: loose({ servers: arr(rec({ k: 'unknown' })) }),
  skills: loose({ enable: bool, agents: arr(str) }),
  tui: loose({ keybindings: rec({ k: 'union', of: [str, arr(str)] }) }),
  security: loose({ allow_read: arr(str), shell_env_keep: arr(str), sandbox: oneOf('auto', 'off'), sandbox_writable: arr(str) }),
  browser: loose({ enable: bool, executable: str }),
});

const NO = Symbol('no');
type Out = unknown;

/** A table as smol-toml and JSON make them (null or Object prototype), never a Date, array or class instance. */
function isTable(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === null || proto === Object.prototype;
}

function check(s: Spec, v: unknown): Out | typeof NO {
  switch (s.k) {
    case 'str':
      return typeof v === 'string' ? v : NO;
    case 'num':
      if (typeof v !== 'number' || !Number.isFinite(v)) return NO;
      return (s.min !== undefined && v < s.min) || (s.above !== undefined && v <= s.above) ? NO : v;
    case 'int':
      return typeof v === 'number' && Number.isSafeInteger(v) && (s.min === undefined || v >= s.min) ? v : NO;
    case 'bool':
      return typeof v === 'boolean' ? v : NO;
    case 'unknown':
      return v;
    case 'exportPath':
      return typeof v === 'string' && exportPathProblem(v) === null ? v : NO;
    case 'enum':
      return typeof v === 'string' && s.values.includes(v) ? v : NO;
    case 'union':
      for (const o of s.of) {
        const r = check(o, v);
        if (r !== NO) return r;
      }
      return NO;
    case 'arr': {
      if (!Array.isArray(v)) return NO;
      const out: unknown[] = [];
      for (const x of v) {
        const r = check(s.of, x);
        if (r === NO) return NO;
        out.push(r);
      }
      return out;
    }
    case 'rec': {
      if (!isTable(v)) return NO;
      const out: Record<string, unknown> = {};
      for (const [key, x] of Object.entries(v)) {
        const r = check(s.of, x);
        if (r === NO) return NO;
        out[key] = r;
      }
      return out;
    }
    case 'obj': {
      if (!isTable(v)) return NO;
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(s.shape)) {
        if (!Object.hasOwn(v, key)) {
          if (s.required?.includes(key) === true) return NO;
          continue;
        }
        const r = check(inner, v[key]);
        if (r === NO) return NO;
        out[key] = r;
      }
      for (const key of Object.keys(v)) {
        if (Object.hasOwn(s.shape, key)) continue;
        if (!s.loose) return NO; // z.object drops it: unsure, let zod say
        out[key] = v[key];
      }
      return out;
    }
  }
}

/** What RawConfigSchema.safeParse(doc).data would be, or null: not sure it passes (run the zod schema). */
export function quickRawCheck(doc: unknown): RawConfig | null {
  const r = check(RAW_SPEC, doc);
  return r === NO ? null : (r as RawConfig);
}
