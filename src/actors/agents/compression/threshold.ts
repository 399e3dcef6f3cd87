// The one threshold rule and the one "are we over it" check every loop calls (seeds §6.5, pitfall 3).
import { compressionThreshold } from '../../llm/catalogue/catalogue.js';
import type { ChatMessage, ToolDef } from '../wire-types.js';
import { toolsEstimate, toolsUpperBound, tokensOf, tokenUpperBound } from './tokens.js';

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

/** min(window × 0.75, configured); the window is the run's (config, server, overflow), else the catalogue's; 120000 with neither. */
export function thresholdFor(s: CompressionSettings, model: string, window?: number): number {
  return compressionThreshold({ compression: { ...s, threshold: s.threshold, envOverride: s.envOverride } }, model, window);
}

/** Real token count of a message list (and the tool definitions sent with it) for the model the next call goes to
 *  (`TokenCounter.countMessageTokens`). */
export type CountMessages = (messages: readonly ChatMessage[], tools?: readonly ToolDef[]) => Promise<number>;

/** Without a counter (unit tests of the tiers): the chars/4 estimate. */
const estimate: CountMessages = (messages, tools = []) => Promise.resolve(tokensOf(messages) + toolsEstimate(tools));

/** Last provider-reported input tokens + real counts of the messages added since; reset when the list is rewritten.
 *  Without a provider figure the tool definitions sent with every call are counted too (what is really sent). */
/** A server's count may exceed ours by this much at most (a wilder ratio is a misread answer, not a tokenizer). */
const MAX_CALIBRATION = 4;
/** A successful call calibrates only from at least this many tokens added (a few short messages are mostly template). */
const MIN_CALIBRATION_TOKENS = 500;

export class ContextMeter {
  private base: { tokens: number; upTo: number } | null = null;
  /** Server tokens per counted token, per model (≥ 1): learnt from an overflow answer's own count (`calibrate`) and from a
   *  successful call's reported input tokens (`report` → `settle`). */
  private readonly ratios = new Map<string, number>();
  /** The latest successful call's provider figure and what it was sent, not yet compared with our count (`settle`). */
  private pending: { tokens: number; messages: readonly ChatMessage[]; key: string } | null = null;
  /** What the previous reported call carried beyond the history (`report`'s `extra`), as one string. */
  private extraSig = '';

  constructor(
    private readonly rawCount: CountMessages = estimate,
    private readonly tools: () => readonly ToolDef[] = () => [],
    /** The model (and provider) the next call goes to: the calibration is kept per key. */
    private readonly key: () => string = () => '',
  ) {}

  /** The factor later counts are scaled by (1 until a server said it counts more). */
  get calibration(): number {
    return this.ratios.get(this.key()) ?? 1;
  }

  private async count(messages: readonly ChatMessage[], tools?: readonly ToolDef[]): Promise<number> {
    await this.settle();
    const n = await this.rawCount(messages, tools);
    const k = this.calibration;
    return k === 1 ? n : Math.ceil(n * k);
  }

  /** A server answered that `messages` (as sent) measure `serverTokens`: later counts are scaled so they would have said
   *  so too (the provider's own figure, the base, needs no scaling). Only ever grows. Returns the factor. */
  async calibrate(serverTokens: number, messages: readonly ChatMessage[]): Promise<number> {
    const { tokens, since, tools } = this.split(messages);
    this.grow(serverTokens - tokens, await this.rawCount(since, tools));
    return this.calibration;
  }

  /** Server tokens `server` for what we count `raw`: the factor grows to their ratio (capped), never shrinks. */
  private grow(server: number, raw: number): void {
    if (raw > 0 && server > raw) {
      const k = Math.min(MAX_CALIBRATION, server / raw);
      if (k > this.calibration) this.ratios.set(this.key(), k);
    }
  }

  /** After a call: the provider's input tokens for the first `sentCount` messages of `history` and the `extra` messages
   *  sent after them (0 = no metering: forget). With `history`, what the provider counted for the messages added since its previous figure (the part the
   *  meter scales: a step's tool results) is kept beside them; the next real count compares it with ours (`settle`), so
   *  an under-counting tokenizer is corrected before the first overflow, not by it. Lazy: a run that never needs a count
   *  never loads an encoder for this. */
  report(inputTokens: number, sentCount: number, history?: readonly ChatMessage[], extra: readonly ChatMessage[] = []): void {
    const prev = this.base;
    this.base = inputTokens > 0 ? { tokens: inputTokens, upTo: sentCount } : null;
    const key = this.key();
    if (this.pending !== null && this.pending.key !== key) this.pending = null;
    // what the call carried beyond the history (per-call context, a reminder): the difference of two figures is the
    // added messages' only when both calls carried the same
    const extraSig = extra.map((m) => `${m.role}\u0000${m.content}`).join('\u0001');
    const sameExtra = extraSig === this.extraSig;
    this.extraSig = extraSig;
    if (history === undefined || !sameExtra || prev === null || this.base === null || prev.upTo >= sentCount || inputTokens <= prev.tokens) return;
    // the figures of consecutive calls on the same list: their difference is the provider's count of what was added
    const added = history.slice(prev.upTo, sentCount);
    const p = this.pending ?? { tokens: 0, messages: [], key };
    this.pending = { tokens: p.tokens + inputTokens - prev.tokens, messages: [...p.messages, ...added], key };
  }

  /** The provider's figures for what the last calls added against our count of it (one count, then forgotten); too
   *  small a part says more about a chat template's per-message tokens than about the tokenizer: skipped. */
  private async settle(): Promise<void> {
    const p = this.pending;
    if (p === null) return;
    this.pending = null;
    // a later call went to another model: its figure says nothing about the next one's tokenizer
    if (p.key !== this.key()) return;
    const raw = await this.rawCount(p.messages);
    if (raw >= MIN_CALIBRATION_TOKENS) this.grow(p.tokens, raw);
  }

  /** The list was rewritten (tier 2/3, or any tier's edit): the provider's figure no longer describes it. */
  invalidate(): void {
    this.base = null;
  }

  async measure(messages: readonly ChatMessage[]): Promise<number> {
    const { tokens, since, tools } = this.split(messages);
    return tokens + (await this.count(since, tools));
  }

  /** The tool definitions alone (the part of every request no compression can shrink). */
  toolTokens(): Promise<number> {
    return this.count([], this.tools());
  }

  /** The part no tier shrinks: `head` (the system message) and the tool definitions. */
  fixedTokens(head: readonly ChatMessage[]): Promise<number> {
    return this.count(head, this.tools());
  }

  /** The fixed part (`head` + tool definitions) in the provider's units, from the chars/4 estimate (no count: a tool step
   *  must not load an encoder): scaled by the provider's figure ÷ our estimate of what it covered, else by the calibration. */
  fixedEstimate(head: readonly ChatMessage[], messages: readonly ChatMessage[]): number {
    const tools = toolsEstimate(this.tools());
    const fixed = tokensOf(head) + tools;
    if (this.base === null || this.base.upTo > messages.length) return Math.ceil(fixed * this.calibration);
    const ours = tokensOf(messages.slice(0, this.base.upTo)) + tools;
    return ours > 0 && this.base.tokens > ours ? Math.ceil((fixed * this.base.tokens) / ours) : fixed;
  }

  /** Over `threshold`? A list whose byte bound is under it cannot be over, so most steps skip the count. */
  async over(messages: readonly ChatMessage[], threshold: number): Promise<boolean> {
    const { tokens, since, tools } = this.split(messages);
    if (tokens + this.calibration * (tokenUpperBound(since) + toolsUpperBound(tools)) <= threshold) return false;
    return tokens + (await this.count(since, tools)) > threshold;
  }

  /** The provider's figure (tools included) and the messages it does not cover; without one, everything and the tools. */
  private split(messages: readonly ChatMessage[]): { tokens: number; since: readonly ChatMessage[]; tools: readonly ToolDef[] } {
    if (this.base === null || this.base.upTo > messages.length) return { tokens: 0, since: messages, tools: this.tools() };
    return { tokens: this.base.tokens, since: messages.slice(this.base.upTo), tools: [] };
  }
}

/** THE threshold check (one implementation; never `tokensOf(messages) > threshold` elsewhere). */
export function overThreshold(meter: ContextMeter, messages: readonly ChatMessage[], threshold: number): Promise<boolean> {
  return meter.over(messages, threshold);
}
