// What a rollout's agent spent: its `llm_usage` records summed by provider × model. A run killed past its grace never
// returns its usage; its parent (or runTask) reads this instead, so a killed delegation's calls are still counted.
import type { UsageEntry } from '../../runtime/protocol/index.js';
import { LLM_USAGE_KIND } from '../api.js';
import { fileSize, readRecords } from './lines.js';

export async function readRolloutUsage(path: string): Promise<UsageEntry[]> {
  if ((await fileSize(path)) === null) return [];
  const { records } = await readRecords(path);
  const byKey = new Map<string, UsageEntry>();
  for (const r of records) {
    if (r.type !== 'event_msg' || r.payload.kind !== LLM_USAGE_KIND || r.payload.usage === undefined) continue;
    const u = r.payload.usage;
    const key = `${u.agent}\u0000${u.provider}\u0000${u.model}`;
    const e = byKey.get(key) ?? { agent: u.agent, provider: u.provider, model: u.model, calls: 0, usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } };
    e.calls += u.calls;
    e.usage.inputTokens += u.usage.inputTokens;
    e.usage.outputTokens += u.usage.outputTokens;
    e.usage.cachedInputTokens += u.usage.cachedInputTokens;
    e.usage.reasoningTokens += u.usage.reasoningTokens;
    byKey.set(key, e);
  }
  return [...byKey.values()];
}
