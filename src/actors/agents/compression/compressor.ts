// The compressor one loop owns: the meter, the thinklink store and the escalation over the three tiers.
import type { LlmEngine } from '../../llm/types.js';
import type { Publish, Recorder } from '../loop-contract.js';
import type { ChatMessage, ToolDef } from '../wire-types.js';
import type { Thought } from '../thought.js';
import { compactedRecord } from './compacted.js';
import { ThinkLink, thinklinkRecord, type ThinkEntry } from './thinklink.js';
import { ContextMeter, overThreshold, thresholdFor, type CompressionSettings, type CountMessages } from './threshold.js';
import { ruleCompress } from './tier1-rule.js';
import { emergencyCompress, KEEP_TURNS, TRANSCRIPT_CHARS } from './tier2-emergency.js';
import { ultimateCompress } from './tier3-ultimate.js';
import { toolsEstimate, tokensOf } from './tokens.js';
import { recentStart } from './turns.js';

export type Tier = 1 | 2 | 3;
const EVENT = { 1: 'context_compressed', 2: 'context_emergency_compressed', 3: 'context_ultimate_compressed' } as const;
/** Tier 1 aims below the threshold so the next few results fit without compressing every step. */
const RULE_TARGET = 0.7;

export interface CompressorDeps {
  agent: string;
  settings: CompressionSettings;
  /** Tier 2's summariser: `[tools.llm]` when set, else the agent's own provider. */
  summarizer: LlmEngine;
  /** The model the next call goes to (the catalogue side of the threshold). */
  model: () => string;
  /** The run's first user message: every rewrite keeps the task. */
  brief: string;
  recorder: Recorder;
  publish: Publish;
  now: () => number;
  signal: AbortSignal;
  /** Plans restored from a rollout (resume: `thinklinkFromRecords`). */
  plans?: readonly ThinkEntry[];
  /** The run's real counter (`env.tokens`: the model's encoding on the CPU pool); absent = the chars/4 estimate. */
  tokens?: MessageCounter;
  /** The tool definitions every call sends (counted while there is no provider figure). */
  tools?: () => readonly ToolDef[];
  /** The window of the provider the next call goes to (`RoutingEngine.window`: config, the server, the catalogue). */
  window?: () => Promise<number | undefined>;
  /** A server's overflow answer named its window: the engine keeps it (and model_info says it). */
  learnWindow?: (tokens: number) => void;
}

/** The part of `TokenCounter` (`../../llm/tokens.ts`) the meter needs. */
export interface MessageCounter {
  countMessageTokens(messages: readonly ChatMessage[], model: string, tools?: readonly ToolDef[]): Promise<number>;
}

export class Compressor {
  readonly meter: ContextMeter;
  readonly thinklink: ThinkLink;
  private countFailed = false;
  /** The smallest window a server's overflow answer named (beats what was known before). */
  private learned: number | undefined;
  constructor(private readonly d: CompressorDeps) {
    this.thinklink = new ThinkLink(d.plans);
    this.meter = new ContextMeter(d.tokens ? this.realCount(d.tokens) : undefined, d.tools);
  }

  /** Real counts; a failed count (no pool) falls back to the estimate for that measure, with one warning per run. */
  private realCount(counter: MessageCounter): CountMessages {
    return async (messages, tools = []) => {
      try {
        return await counter.countMessageTokens(messages, this.d.model(), tools);
      } catch (e) {
        if (!this.countFailed) this.d.publish({ type: 'log', level: 'warn', message: `${this.d.agent}: token count failed, using the chars/4 estimate: ${String(e)}` });
        this.countFailed = true;
        return tokensOf(messages) + toolsEstimate(tools);
      }
    };
  }

  /** min(window × 0.75, configured): the window the engine knows, or the smaller one an overflow answer named. */
  async threshold(): Promise<number> {
    const known = await this.d.window?.();
    const window = this.learned !== undefined && known !== undefined ? Math.min(this.learned, known) : (this.learned ?? known);
    return thresholdFor(this.d.settings, this.d.model(), window);
  }

  /** The server said how big its window is (an overflow answer's n_ctx): the threshold follows it from now on. */
  learnWindow(tokens: number): void {
    if (this.learned !== undefined && this.learned <= tokens) return;
    this.learned = tokens;
    this.d.learnWindow?.(tokens);
  }

  /** After a successful call: the provider's input tokens for the `sentCount` messages it was sent. */
  observe(inputTokens: number, sentCount: number): void {
    this.meter.report(inputTokens, sentCount);
  }

  /** A valid plan enters the thinklink store and the rollout. */
  notePlan(step: number, t: Thought): void {
    this.d.recorder.append([thinklinkRecord(this.thinklink.add(step, t), this.d.now())]);
  }

  /** Before a call: over the threshold → tier 1, still over → tier 2, still over → tier 3. Returns the highest tier applied (0 = none). */
  async fit(messages: ChatMessage[]): Promise<Tier | 0> {
    const limit = await this.threshold();
    if (!(await overThreshold(this.meter, messages, limit))) return 0;
    let applied: Tier | 0 = 0;
    for (const tier of [1, 2, 3] as const) {
      if (await this.apply(tier, messages, limit, false)) applied = tier;
      // tier 1 must leave headroom, or it would fire again on the very next step (tier 2 then takes over)
      const goal = tier === 1 ? Math.floor(limit * RULE_TARGET) : limit;
      if (!(await overThreshold(this.meter, messages, goal))) break;
    }
    return applied;
  }

  /** The provider said the request does not fit: the next tier after `after` that changes something (0 = none left). */
  async recover(messages: ChatMessage[], after: Tier | 0): Promise<Tier | 0> {
    const limit = await this.threshold();
    for (const tier of [1, 2, 3] as const) {
      if (tier > after && (await this.apply(tier, messages, limit, true))) return tier;
    }
    return 0;
  }

  /** Rewrites `messages` in place; false when the tier had nothing to do or is not available. */
  private async apply(tier: Tier, messages: ChatMessage[], limit: number, forced: boolean): Promise<boolean> {
    const before = await this.meter.measure(messages);
    // the tool definitions go with every request and no tier shrinks them: the messages get what is left
    const tools = await this.meter.toolTokens();
    // the tiers aim with the chars/4 estimate: scale the real goal into their units
    const scale = before - tools > 0 ? tokensOf(messages) / (before - tools) : 1;
    const next = await this.rewrite(tier, messages, Math.max(0, Math.floor((limit - tools) * scale)), forced);
    if (next === null) return false;
    this.d.recorder.append([compactedRecord(messages, next, this.d.now())]);
    messages.splice(0, messages.length, ...next);
    this.meter.invalidate();
    const after = await this.meter.measure(messages);
    this.d.publish({ type: EVENT[tier], agent: this.d.agent, beforeTokens: before, afterTokens: after });
    return true;
  }

  /** `limit` is in the tiers' estimate units (see `apply`). */
  private async rewrite(tier: Tier, messages: readonly ChatMessage[], limit: number, forced: boolean): Promise<ChatMessage[] | null> {
    const s = this.d.settings;
    switch (tier) {
      case 1: {
        const target = forced ? 0 : Math.floor(limit * RULE_TARGET);
        const r = ruleCompress(messages, { keepTokens: s.toolResultKeepTokens, target, protectFrom: recentStart(messages, KEEP_TURNS) });
        return r.changed ? r.messages : null;
      }
      case 2:
        // the summary call reads at most about half the threshold (2 chars ≈ half a token)
        return emergencyCompress(messages, { summarizer: this.d.summarizer, brief: this.d.brief, signal: this.d.signal, maxChars: Math.min(TRANSCRIPT_CHARS, limit * 2) });
      case 3: {
        if (!s.enableUltimate || this.thinklink.size === 0) return null;
        const next = ultimateCompress(messages, { brief: this.d.brief, plans: this.thinklink.last(s.ultimateKeepPlans), target: Math.floor(limit * RULE_TARGET), keepTokens: s.toolResultKeepTokens });
        return next !== null && tokensOf(next) < tokensOf(messages) ? next : null;
      }
    }
  }
}
