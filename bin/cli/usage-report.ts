// Token usage and estimated cost of a task: per-agent lines for the text footer, snake_case objects for json.
import type { AgentUsage, TaskOutcome } from '../host/types.js';
import type { Usage } from '../../src/runtime/protocol/index.js';
import { NO_USAGE } from '../host/empty-outcome.js';


/** 950, 12.3k, 4.5M: short enough for a footer. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Math.round(n / 100) / 10}k`;
  return `${Math.round(n / 100_000) / 10}M`;
}

export function usd(v: number): string {
  return v === 0 ? '$0' : v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

interface AgentTotal {
  agent: string;
  models: string[];
  calls: number;
  usage: Usage;
  costUsd: number | null;
}

/** One total per agent (an agent that used several models sums them; the cost is unknown if any model is unpriced). */
export function perAgent(entries: readonly AgentUsage[]): AgentTotal[] {
  const by = new Map<string, AgentTotal>();
  for (const e of entries) {
    let t = by.get(e.agent);
    if (t === undefined) by.set(e.agent, (t = { agent: e.agent, models: [], calls: 0, usage: { ...NO_USAGE }, costUsd: 0 }));
    const model = `${e.provider}/${e.model}`;
    if (!t.models.includes(model)) t.models.push(model);
    t.calls += e.calls;
    t.usage.inputTokens += e.usage.inputTokens;
    t.usage.outputTokens += e.usage.outputTokens;
    t.usage.cachedInputTokens += e.usage.cachedInputTokens;
    t.usage.reasoningTokens += e.usage.reasoningTokens;
    t.costUsd = t.costUsd === null || e.costUsd === null ? null : t.costUsd + e.costUsd;
  }
  return [...by.values()];
}

function line(u: Usage): string {
  const cached = u.cachedInputTokens > 0 ? ` (${tokens(u.cachedInputTokens)} cached)` : '';
  const reasoning = u.reasoningTokens > 0 ? ` (${tokens(u.reasoningTokens)} reasoning)` : '';
  return `${tokens(u.inputTokens)} in${cached} / ${tokens(u.outputTokens)} out${reasoning}`;
}

function costText(o: TaskOutcome): string {
  const unpriced = o.unpricedModels ?? [];
  if (unpriced.length === 0) return `est. ${usd(o.costUsd ?? 0)}`;
  // never "$0" for a model without a price: what is priced, and which models are not
  const priced = (o.costUsd ?? 0) > 0 ? `est. ${usd(o.costUsd ?? 0)} + ` : '';
  return `${priced}no price for ${unpriced.join(', ')} (add [llm.prices."<model>"])`;
}

/** The footer: the task total with its cost, then one line per agent. */
export function usageLines(o: TaskOutcome): string[] {
  const agents = perAgent(o.usageByAgent ?? []);
  const calls = agents.reduce((s, a) => s + a.calls, 0);
  const out = [`usage: ${line(o.usage)} · ${calls} call${calls === 1 ? '' : 's'} · ${costText(o)}`];
  const width = Math.max(0, ...agents.map((a) => a.agent.length));
  for (const a of agents) {
    const cost = a.costUsd === null ? 'no price' : usd(a.costUsd);
    out.push(`  ${a.agent.padEnd(width)}  ${line(a.usage)} · ${a.calls} call${a.calls === 1 ? '' : 's'} · ${cost} · ${a.models.join(', ')}`);
  }
  return out;
}

export interface UsageJson {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
}

export function usageJson(u: Usage): UsageJson {
  return { input_tokens: u.inputTokens, output_tokens: u.outputTokens, cached_input_tokens: u.cachedInputTokens, reasoning_tokens: u.reasoningTokens };
}

/** `usage_by_agent` of json, stream-json and batch results: one object per agent × provider × model. */
export function usageByAgentJson(o: TaskOutcome): (UsageJson & { agent: string; provider: string; model: string; calls: number; cost_usd: number | null })[] {
  return (o.usageByAgent ?? []).map((e) => ({ agent: e.agent, provider: e.provider, model: e.model, calls: e.calls, ...usageJson(e.usage), cost_usd: e.costUsd }));
}
