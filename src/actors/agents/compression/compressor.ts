// The compressor one loop owns: the meter, the thinklink store and the escalation over the three tiers.
import type { LlmEngine } from '../../llm/types.js';
import type { Recorder } from '../loop-contract.js';
import type { ChatMessage } from '../wire-types.js';
import type { Thought } from '../thought.js';
import { compactedRecord } from './compacted.js';
import { ThinkLink, thinklinkRecord, type ThinkEntry } from './thinklink.js';
import { overThreshold, type ContextMeter } from './threshold.js';
import { WindowBudget, type WindowBudgetDeps } from './window-budget.js';
import { ruleCompress } from './tier1-rule.js';
import { emergencyCompress, KEEP_TURNS, TRANSCRIPT_CHARS } from './tier2-emergency.js';
import { ultimateCompress } from './tier3-ultimate.js';
import { tokensOf } from './tokens.js';
import { recentStart } from './turns.js';

export type Tier = 1 | 2 | 3;
const EVENT = { 1: 'context_compressed', 2: 'context_emergency_compressed', 3: 'context_ultimate_compressed' } as const;
/** Every compression aims at this share of the room the threshold leaves above the fixed part (system prompt, tool
 *  definitions): the next several steps then fit before the next one (issue 23 item 9). */
const LOW_WATER = 0.5;
/** Tier 1's passes, gentlest first: [turns kept whole, share of tool_result_keep_tokens an old result keeps]. */
const RULE_PASSES: readonly (readonly [number, number])[] = [
  [KEEP_TURNS, 1],
  [1, 1],
  [1, 0.25],
];

/** A last-turn result the server's refusal forces a cut of keeps at least this many tokens (its head still says something). */
const RECENT_KEEP_MIN = 50;

export interface CompressorDeps extends WindowBudgetDeps {
  /** Tier 2's summariser: `[tools.llm]` when set, else the agent's own provider. */
  summarizer: LlmEngine;
  /** The run's first user message: every rewrite keeps the task. */
  brief: string;
  recorder: Recorder;
  now: () => number;
  signal: AbortSignal;
  /** Plans restored from a rollout (resume: `thinklinkFromRecords`). */
  plans?: readonly ThinkEntry[];
  /** The run's window budget (run-agent builds one whether compression is on or not); absent = one from these deps. */
  budget?: WindowBudget;
}

export type { MessageCounter } from './window-budget.js';

export class Compressor {
  readonly budget: WindowBudget;
  readonly thinklink: ThinkLink;
  constructor(private readonly d: CompressorDeps) {
    this.thinklink = new ThinkLink(d.plans);
    this.budget = d.budget ?? new WindowBudget(d);
  }

  get meter(): ContextMeter {
    return this.budget.meter;
  }

  /** min(window × 0.75, configured): the window the engine knows, or the smaller one an overflow answer named. */
  threshold(): Promise<number> {
    return this.budget.threshold();
  }

  /** The cap of one tool result (chars): `WindowBudget.resultChars`. */
  resultChars(messages: readonly ChatMessage[], calls = 1): Promise<number> {
    return this.budget.resultChars(messages, calls);
  }

  /** A server's overflow answer counted `serverTokens` for `sent`: later measures for the model scale by its ratio. */
  calibrate(serverTokens: number, sent: readonly ChatMessage[]): Promise<void> {
    return this.budget.calibrate(serverTokens, sent);
  }

  /** The server said how big its window is (an overflow answer's n_ctx): the threshold follows it from now on. */
  learnWindow(tokens: number): void {
    this.budget.learnWindow(tokens);
  }

  /** After a successful call: the provider's input tokens for the first `sentCount` messages of `history`. */
  observe(inputTokens: number, sentCount: number, history?: readonly ChatMessage[], extra?: readonly ChatMessage[]): void {
    this.budget.observe(inputTokens, sentCount, history, extra);
  }

  /** A valid plan enters the thinklink store and the rollout. */
  notePlan(step: number, t: Thought): void {
    this.d.recorder.append([thinklinkRecord(this.thinklink.add(step, t), this.d.now())]);
  }

  /** Before a call, over the threshold: tier 1 (harder pass by pass) down to the low-water mark; only when tier 1 cannot
   *  get under the threshold itself, tier 2 (a model call), then tier 3. Returns the highest tier applied (0 = none). */
  async fit(messages: ChatMessage[]): Promise<Tier | 0> {
    // no turn and no plan yet (a run's first request): no tier has anything to cut, so it need not wait for the window
    if (this.thinklink.size === 0 && !messages.some((m) => m.role === 'assistant')) return 0;
    const limit = await this.threshold();
    if (!(await overThreshold(this.meter, messages, limit))) return 0;
    const goal = await this.lowWater(messages, limit);
    let applied: Tier | 0 = 0;
    if (await this.apply(1, messages, goal, limit, false)) applied = 1;
    if (!(await overThreshold(this.meter, messages, limit))) return applied;
    if (await this.apply(2, messages, goal, limit, false)) {
      applied = 2;
      // the turns tier 2 kept whole may still hold old results tier 1 can cut
      if (await overThreshold(this.meter, messages, goal)) await this.apply(1, messages, goal, limit, false);
    }
    if ((await overThreshold(this.meter, messages, limit)) && (await this.apply(3, messages, goal, limit, false))) applied = 3;
    return applied;
  }

  /** The provider said the request does not fit: the next tier after `after` that changes something (0 = none left). */
  async recover(messages: ChatMessage[], after: Tier | 0): Promise<Tier | 0> {
    const limit = await this.threshold();
    const goal = await this.lowWater(messages, limit);
    for (const tier of [1, 2, 3] as const) {
      if (tier > after && (await this.apply(tier, messages, goal, limit, true))) return tier;
    }
    // no tier left, yet a server that refused again taught a larger ratio (calibrate): one more forced cut toward the
    // recalibrated goal, counted as the last tier so the loop never walks back down (each cut keeps less: bounded)
    return after > 0 && (await this.apply(1, messages, goal, limit, true)) ? 3 : 0;
  }

  /** Well under the threshold: the fixed part plus LOW_WATER of the room above it. */
  private async lowWater(messages: readonly ChatMessage[], limit: number): Promise<number> {
    const fixed = await this.meter.fixedTokens(messages.slice(0, 1));
    return limit > fixed ? fixed + Math.floor(LOW_WATER * (limit - fixed)) : limit;
  }

  /** Rewrites `messages` in place toward `goal` (real tokens of the whole request); false when the tier had nothing to do. */
  private async apply(tier: Tier, messages: ChatMessage[], goal: number, limit: number, forced: boolean): Promise<boolean> {
    const before = await this.meter.measure(messages);
    // the tool definitions go with every request and no tier shrinks them: the messages get what is left
    const tools = await this.meter.toolTokens();
    // the tiers aim with the chars/4 estimate: scale the real goal into their units
    const scale = before - tools > 0 ? tokensOf(messages) / (before - tools) : 1;
    const units = (n: number): number => Math.max(0, Math.floor((n - tools) * scale));
    const next = await this.rewrite(tier, messages, units(goal), units(limit), forced);
    if (next === null) return false;
    this.d.recorder.append([compactedRecord(messages, next, this.d.now())]);
    messages.splice(0, messages.length, ...next);
    this.meter.invalidate();
    const after = await this.meter.measure(messages);
    this.d.publish({ type: EVENT[tier], agent: this.d.agent, beforeTokens: before, afterTokens: after });
    return true;
  }

  /** `target` and `room` (what the threshold leaves for messages) are in the tiers' estimate units (see `apply`). */
  private async rewrite(tier: Tier, messages: readonly ChatMessage[], target: number, room: number, forced: boolean): Promise<ChatMessage[] | null> {
    const s = this.d.settings;
    switch (tier) {
      case 1: {
        // gentlest pass first; a forced one (the server said it does not fit) cuts every candidate at the hardest pass
        let list: readonly ChatMessage[] = messages;
        let changed = false;
        let tokens = tokensOf(list);
        for (const [turns, share] of forced ? RULE_PASSES.slice(-1) : RULE_PASSES) {
          const r = ruleCompress(list, { keepTokens: Math.floor(s.toolResultKeepTokens * share), target: forced ? 0 : target, protectFrom: recentStart(list, turns) });
          if (r.changed) [list, changed] = [r.messages, true];
          tokens = r.tokens;
          if (!forced && r.tokens <= target) break;
        }
        // the server refused even so: an oversize result of the last turn (one huge grep) is cut too, down to the goal
        if (forced && tokens > target) {
          for (const keep of [Math.floor(target / 4), Math.floor(s.toolResultKeepTokens / 4)]) {
            const r = ruleCompress(list, { keepTokens: Math.max(RECENT_KEEP_MIN, keep), target, protectFrom: list.length });
            if (r.changed) [list, changed] = [r.messages, true];
            if (r.tokens <= target) break;
          }
        }
        return changed ? [...list] : null;
      }
      case 2:
        // the summary call reads at most about half the room (2 chars ≈ half a token) and writes at most a quarter of it
        return emergencyCompress(messages, { summarizer: this.d.summarizer, brief: this.d.brief, signal: this.d.signal, maxChars: Math.min(TRANSCRIPT_CHARS, room * 2), maxWords: Math.max(100, Math.floor(room * 0.2)) });
      case 3: {
        if (!s.enableUltimate || this.thinklink.size === 0) return null;
        const next = ultimateCompress(messages, { brief: this.d.brief, plans: this.thinklink.last(s.ultimateKeepPlans), target, keepTokens: s.toolResultKeepTokens });
        return next !== null && tokensOf(next) < tokensOf(messages) ? next : null;
      }
    }
  }
}
