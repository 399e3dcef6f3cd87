// The one threshold rule and the one "are we over it" check every loop calls (seeds §6.5, pitfall 3).
import { compressionThreshold } from '../../llm/catalogue/catalogue.js';
import type { ChatMessage } from '../wire-types.js';
import { tokensOf, tokenUpperBound } from './tokens.js';

export interface CompressionSettings {
  /** `[enhanced_commander] enable_context_compression`: the only switch. */
  enabled: boolean;
  /** `context_compression_threshold` (undefined = not configured). */
  threshold?: number | undefined;
  /** YAGENT_COMPRESS_THRESHOLD (debug): beats catalogue and config. */
  envOverride?: number | undefined;
  /** Tier 1 cuts an old tool result down to this many tokens. */
  toolResultKeepTokens: number;
  /** Tier 3 also needs a non-empty thinklink store. */
  enableUltimate: boolean;
  /** Plans tier 3 rebuilds from (0 = all). */
  ultimateKeepPlans: number;
}

export const DEFAULT_COMPRESSION: CompressionSettings = { enabled: true, toolResultKeepTokens: 200, enableUltimate: true, ultimateKeepPlans: 3 };

/** min(catalogue context × 0.75, configured); 120000 with neither. The provider's context_window takes no part. */
export function thresholdFor(s: CompressionSettings, model: string): number {
  return compressionThreshold({ compression: { ...s, threshold: s.threshold, envOverride: s.envOverride } }, model);
}

/** Real token count of a message list for the model the next call goes to (`TokenCounter.countMessageTokens`). */
export type CountMessages = (messages: readonly ChatMessage[]) => Promise<number>;

/** Without a counter (unit tests of the tiers): the chars/4 estimate. */
const estimate: CountMessages = (messages) => Promise.resolve(tokensOf(messages));

/** Last provider-reported input tokens + real counts of the messages added since; reset when the list is rewritten. */
export class ContextMeter {
  private base: { tokens: number; upTo: number } | null = null;

  constructor(private readonly count: CountMessages = estimate) {}

  /** After a call: the provider's input tokens for the first `sentCount` messages (0 = no metering: forget). */
  report(inputTokens: number, sentCount: number): void {
    this.base = inputTokens > 0 ? { tokens: inputTokens, upTo: sentCount } : null;
  }

  /** The list was rewritten (tier 2/3, or any tier's edit): the provider's figure no longer describes it. */
  invalidate(): void {
    this.base = null;
  }

  async measure(messages: readonly ChatMessage[]): Promise<number> {
    const { tokens, since } = this.split(messages);
    return tokens + (await this.count(since));
  }

  /** Over `threshold`? A list whose byte bound is under it cannot be over, so most steps skip the count. */
  async over(messages: readonly ChatMessage[], threshold: number): Promise<boolean> {
    const { tokens, since } = this.split(messages);
    if (tokens + tokenUpperBound(since) <= threshold) return false;
    return tokens + (await this.count(since)) > threshold;
  }

  /** The provider's figure and the messages it does not cover (all of them when there is none). */
  private split(messages: readonly ChatMessage[]): { tokens: number; since: readonly ChatMessage[] } {
    if (this.base === null || this.base.upTo > messages.length) return { tokens: 0, since: messages };
    return { tokens: this.base.tokens, since: messages.slice(this.base.upTo) };
  }
}

/** THE threshold check (one implementation; never `tokensOf(messages) > threshold` elsewhere). */
export function overThreshold(meter: ContextMeter, messages: readonly ChatMessage[], threshold: number): Promise<boolean> {
  return meter.over(messages, threshold);
}
