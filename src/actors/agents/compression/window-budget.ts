// What the model's window allows, compression on or off: the window (the engine's, or the smaller one an overflow answer
// named), the meter with its calibration, the threshold, and the cap of one tool result.
import type { Publish } from '../loop-contract.js';
import type { ChatMessage, ToolDef } from '../wire-types.js';
import { ContextMeter, thresholdFor, type CompressionSettings, type CountMessages } from './threshold.js';
import { toolsEstimate, tokensOf } from './tokens.js';
import { resultCharsFor } from '../../tools/truncate.js';

/** The part of `TokenCounter` (`../../llm/tokens.ts`) the meter needs. */
export interface MessageCounter {
  countMessageTokens(messages: readonly ChatMessage[], model: string, tools?: readonly ToolDef[]): Promise<number>;
}

export interface WindowBudgetDeps {
  agent: string;
  /** `enabled` false: nothing will ever shrink the history, so a result's room is what the whole request leaves. */
  settings: CompressionSettings;
  /** The model the next call goes to (the catalogue side of the threshold; the calibration's key). */
  model: () => string;
  publish: Publish;
  /** The run's real counter (`env.tokens`: the model's encoding on the CPU pool); absent = the chars/4 estimate. */
  tokens?: MessageCounter;
  /** The tool definitions every call sends (counted while there is no provider figure). */
  tools?: () => readonly ToolDef[];
  /** The window of the provider the next call goes to (`RoutingEngine.window`: config, the server, the catalogue). */
  window?: () => Promise<number | undefined>;
  /** A server's overflow answer named its window: the engine keeps it (and model_info says it). */
  learnWindow?: (tokens: number) => void;
}

export class WindowBudget {
  readonly meter: ContextMeter;
  private countFailed = false;
  /** The smallest window a server's overflow answer named (beats what was known before). */
  private learned: number | undefined;
  constructor(private readonly d: WindowBudgetDeps) {
    this.meter = new ContextMeter(d.tokens ? this.realCount(d.tokens) : undefined, d.tools, d.model);
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

  /** The window the engine knows, or the smaller one an overflow answer named. */
  async window(): Promise<number | undefined> {
    const known = await this.d.window?.();
    return this.learned !== undefined && known !== undefined ? Math.min(this.learned, known) : (this.learned ?? known);
  }

  /** min(window × 0.75, configured): the window the engine knows, or the smaller one an overflow answer named. */
  async threshold(): Promise<number> {
    return thresholdFor(this.d.settings, this.d.model(), await this.window());
  }

  /** The cap of one tool result (chars) for a batch of `calls`. Compression on: a share of the window and of the room the
   *  threshold leaves above the fixed part of `messages` (system prompt, tool definitions). Compression off: nothing
   *  will shrink the history, so the room is what the whole request leaves of the window, shared by the batch's
   *  results. Smaller once the server counted more than we do. Estimates only: a tool step never loads an encoder. */
  async resultChars(messages: readonly ChatMessage[], calls = 1): Promise<number> {
    const w = await this.window();
    if (w === undefined) return resultCharsFor(undefined);
    const scaled = w / this.meter.calibration;
    if (!this.d.settings.enabled) return resultCharsFor(scaled, (w - this.meter.fixedEstimate(messages, messages)) / Math.max(1, calls));
    const room = (await this.threshold()) - this.meter.fixedEstimate(messages.slice(0, 1), messages);
    return resultCharsFor(scaled, room);
  }

  /** A server's overflow answer counted `serverTokens` for `sent`: later measures for the model scale by its ratio. */
  async calibrate(serverTokens: number, sent: readonly ChatMessage[]): Promise<void> {
    await this.meter.calibrate(serverTokens, sent);
  }

  /** The server said how big its window is (an overflow answer's n_ctx): the threshold follows it from now on. */
  learnWindow(tokens: number): void {
    if (this.learned !== undefined && this.learned <= tokens) return;
    this.learned = tokens;
    this.d.learnWindow?.(tokens);
  }

  /** After a successful call: the provider's input tokens for the first `sentCount` messages of `history`; with it, the
   *  next real count first calibrates by what the provider counted for the messages added (`ContextMeter.report`);
   *  `extra`: what the call carried after the history (per-call context, reminders). */
  observe(inputTokens: number, sentCount: number, history?: readonly ChatMessage[], extra?: readonly ChatMessage[]): void {
    this.meter.report(inputTokens, sentCount, history, extra);
  }
}
