// Estimated cost: list prices per million tokens by model id prefix, overridable per model in [llm.prices."<model>"].
import type { ModelPrice } from '../../../runtime/config/index.js';
import type { UsageEntry } from '../../../runtime/protocol/index.js';

/** USD per million tokens (list prices when written; an estimate, not a bill). cachedInput defaults to input. */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-3-7-sonnet': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cachedInput: 0.08 },
  'claude-haiku-4': { input: 1, output: 5, cachedInput: 0.1 },
  'deepseek-chat': { input: 0.27, output: 1.1, cachedInput: 0.07 },
  'deepseek-reasoner': { input: 0.55, output: 2.19, cachedInput: 0.14 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.31 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.075 },
};

const KEYS = Object.keys(MODEL_PRICES).sort((a, b) => b.length - a.length);

/** Config wins (exact model id, with or without its `vendor/` path), else the longest catalogue prefix; local models have none. */
export function priceFor(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | undefined {
  const lower = model.toLowerCase();
  const id = lower.split('/').pop() ?? lower;
  for (const [k, v] of Object.entries(overrides)) if (k.toLowerCase() === lower || k.toLowerCase() === id) return v;
  const exact = MODEL_PRICES[id];
  if (exact !== undefined) return exact;
  const key = KEYS.find((k) => id.startsWith(k));
  return key !== undefined ? MODEL_PRICES[key] : undefined;
}

/** Cached input tokens are part of the input count and billed at the cached rate; reasoning is part of output. */
export function costOf(usage: UsageEntry['usage'], price: ModelPrice): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000;
}

export interface PricedEntry extends UsageEntry {
  /** null = no price known for this model (local models, unknown ids): add one under [llm.prices]. */
  costUsd: number | null;
}

export interface CostEstimate {
  entries: PricedEntry[];
  /** Sum over priced entries. */
  totalUsd: number;
  /** Models without a price (their tokens are not in the total). */
  unpriced: string[];
}

export function estimateCost(entries: readonly UsageEntry[], overrides: Readonly<Record<string, ModelPrice>> = {}): CostEstimate {
  const priced = entries.map((e): PricedEntry => {
    const p = priceFor(e.model, overrides);
    return { ...e, costUsd: p !== undefined ? costOf(e.usage, p) : null };
  });
  const unpriced = [...new Set(priced.filter((e) => e.costUsd === null && e.calls > 0).map((e) => e.model))];
  return { entries: priced, totalUsd: priced.reduce((s, e) => s + (e.costUsd ?? 0), 0), unpriced };
}
