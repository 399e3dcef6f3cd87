// One run's token usage by agent × provider × model: its own calls plus every delegation's report (nested included).
import type { Usage, UsageEntry } from '../../runtime/protocol/index.js';

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };

export function addUsage(into: Usage, u: Usage): void {
  into.inputTokens += u.inputTokens;
  into.outputTokens += u.outputTokens;
  into.cachedInputTokens += u.cachedInputTokens;
  into.reasoningTokens += u.reasoningTokens;
}

export class UsageLedger {
  private readonly entries = new Map<string, UsageEntry>();

  /** onOwn: each of this run's own calls (not a child's report), as the rollout records it (`llm_usage`). */
  constructor(private readonly onOwn?: (entry: UsageEntry) => void) {}

  /** One provider call of `agent`. */
  add(agent: string, call: { provider: string; model: string; usage: Usage }, calls = 1): void {
    this.onOwn?.({ agent, provider: call.provider, model: call.model, calls, usage: { ...call.usage } });
    this.count(agent, call, calls);
  }

  private count(agent: string, call: { provider: string; model: string; usage: Usage }, calls: number): void {
    const key = `${agent}\u0000${call.provider}\u0000${call.model}`;
    let e = this.entries.get(key);
    if (e === undefined) {
      e = { agent, provider: call.provider, model: call.model, calls: 0, usage: { ...ZERO_USAGE } };
      this.entries.set(key, e);
    }
    e.calls += calls;
    addUsage(e.usage, call.usage);
  }

  /** A child run's report (its own entries and its descendants'). */
  merge(report: readonly UsageEntry[]): void {
    for (const e of report) this.count(e.agent, e, e.calls);
  }

  list(): UsageEntry[] {
    return [...this.entries.values()].map((e) => ({ ...e, usage: { ...e.usage } }));
  }

  total(): Usage {
    const t = { ...ZERO_USAGE };
    for (const e of this.entries.values()) addUsage(t, e.usage);
    return t;
  }
}
