// The one run loop every agent uses: pause gate → LLM → <thought> → plain text or tool batch → stop.
import type { Clock, PauseGate } from '../../runtime/actor.js';
import type { LlmEngine, LlmResponse } from '../llm/types.js';
import type { LoopFlags } from './profiles.js';
import type { LoopResult, Publish, Recorder, ToolCallOutcome, ToolRunner, ExitHandoff } from './loop-contract.js';
import type { ChatMessage, StopReason, Usage } from './wire-types.js';
import { parseThought, renderThought, stripThought } from './thought.js';
import { injectTransient } from './transient.js';
import { abortStopReason } from './abort-reason.js';
import { sleepUnlessAborted } from '../../runtime/clock.js';
import type { Compressor, Tier } from './compression/compressor.js';
import type { WindowBudget } from './compression/window-budget.js';
import { addUsage, ZERO_USAGE, type UsageLedger } from './usage-ledger.js';
import type { CallUsage } from '../llm/types.js';
import type { TokenCounter } from '../llm/tokens.js';

export interface LoopDeps {
  agent: string;
  /** The workspace: each turn_context records it (rollout identity). */
  cwd: string;
  engine: LlmEngine;
  tools: ToolRunner;
  flags: LoopFlags;
  recorder: Recorder;
  /** The caller already recorded the initial messages (a resumed run writes them before its recovery: initial-messages.ts). */
  initialRecorded?: boolean;
  publish: Publish;
  pause: PauseGate;
  signal: AbortSignal;
  clock: Clock;
  /** Messages for this one LLM call only (note index, pending mentions): never in memory or rollout. */
  transient?: () => Promise<ChatMessage[]>;
  /** Messages the user typed while the run works (and model switches, applied by the callee): taken at each step
   *  boundary, before the step's call, and kept in the history like any turn's prompt. */
  inbox?: () => Promise<ChatMessage[]>;
  /** Each answered step's text, once it is in the history (the Director's verdict on what its delegations returned). */
  afterResponse?: (text: string) => Promise<void>;
  /** Plain-text policy: a reminder to inject, or null to finish now. Default: the closing reminder. */
  plainTextReminder?: (text: string, remindersLeft: number) => string | null;
  /** Reminders go to the next call only: the answer and the reminder are an event, never in memory or history. */
  ephemeralReminders?: boolean;
  /** Any sign of progress (LLM delta, tool result): feeds idle timeouts. */
  onActivity?: () => void;
  /** Base of the per-step retry backoff (doubles per attempt, full jitter); tests pass 0. */
  retryBackoffMs?: number;
  /** The step backoff's jitter source in [0, 1); default Math.random. */
  random?: () => number;
  maxTokens?: number;
  temperature?: number;
  /** Context compression (absent = `enable_context_compression = false`: a context-length error ends the run). */
  compressor?: Compressor;
  /** The window with compression on or off (result cap, provider figures, learnt window); default the compressor's. */
  budget?: WindowBudget;
  /** The run's usage ledger: every provider call of this loop lands here (classifier calls included). */
  ledger?: UsageLedger;
  /** The run's token counter (`env.tokens`): each answered call's prompt and reported input tokens (Claude correction). */
  tokens?: Pick<TokenCounter, 'observeUsage'>;
}

/** The `source` of the warning for a missing or malformed <thought>: clients say it once, and only with -v. */
export const THOUGHT_LOG_SOURCE = 'thought';

export const CLOSING_REMINDER =
  'You replied without calling a tool. If your work is done, call `agent_exit` now with `conclusion` set to your full deliverable, plus facts, artifacts and status. Otherwise continue with the next tool call.';

export async function runLoop(deps: LoopDeps, initial: readonly ChatMessage[]): Promise<LoopResult> {
  const { agent, flags, recorder } = deps;
  const messages: ChatMessage[] = [...initial];
  const budget = deps.budget ?? deps.compressor?.budget;
  const usage: Usage = { ...ZERO_USAGE };
  const account = (u: CallUsage): void => {
    addUsage(usage, u.usage);
    deps.ledger?.add(agent, u);
  };
  let remindersLeft = flags.noActionRetryLimit;
  // an ephemeral reminder's exchange (the answer, the reminder): sent with the next call only, then dropped
  let reminded: ChatMessage[] = [];
  let thoughtFailures = 0;
  let step = 0;
  const ts = (): number => deps.clock.now();
  const push = (m: ChatMessage): void => {
    messages.push(m);
    recorder.append([{ type: 'response_item', ts: ts(), payload: m }]);
  };
  const stop = (stopReason: StopReason, text: string, extra: { exit?: ExitHandoff; error?: string } = {}): LoopResult => {
    recorder.append([{ type: 'event_msg', ts: ts(), payload: { kind: 'stop', stopReason, detail: extra.error } }]);
    return { stopReason, text, steps: step, usage, thoughtFailures, messages, ...extra };
  };
  if (deps.initialRecorded !== true) recorder.append(initial.map((m) => ({ type: 'response_item' as const, ts: ts(), payload: m })));

  try {
    while (step < flags.maxSteps) {
      // rejects only when the signal aborts, which the check right below turns into the cancelled stop
      await deps.pause.wait(deps.signal).catch(() => undefined);
      if (deps.signal.aborted) return stop(abortStopReason(deps.signal), '');
      if (deps.inbox) for (const m of await deps.inbox()) push(m);
      step++;
      // the per-call context (at worst a store round trip) is asked first, so the step's records and the fit go meanwhile
      const asked = deps.transient ? deps.transient() : Promise.resolve([]);
      asked.catch(() => undefined); // awaited below: a rejection surfaces there, after the fit
      const described = deps.engine.describe();
      recorder.append([{ type: 'turn_context', ts: ts(), payload: { ...described, cwd: deps.cwd, step } }]);
      let tier: Tier | 0 = deps.compressor ? await deps.compressor.fit(messages) : 0;
      const extras = await asked;
      const sent = (): readonly ChatMessage[] => [...injectTransient(messages, extras), ...reminded];
      let sending = sent();
      let call = await callWithRetries(deps, sending, step, account);
      // a context-length error is answered by the next tier and one retry, never by a blind retry
      while (call.kind === 'overflow') {
        // the server named its window: the threshold follows it, so the recovery and later steps aim under it
        if (call.contextWindow !== undefined) budget?.learnWindow(call.contextWindow);
        // the server's own count of what was sent: later estimates are scaled by it (calibration)
        if (call.promptTokens !== undefined) await deps.compressor?.calibrate(call.promptTokens, sent());
        tier = deps.compressor ? await deps.compressor.recover(messages, tier) : 0;
        if (tier === 0) return stop('llm_error', '', { error: call.error });
        sending = sent();
        call = await callWithRetries(deps, sending, step, account);
      }
      reminded = [];
      if (call.kind === 'stop') return stop(call.stopReason, '', { error: call.error });
      const res = call.res;
      // the provider's count of what was sent: the base of the next measure; the part it added since its last figure, against
      // our count of it, calibrates ours (an under-counting tokenizer is caught before the first overflow)
      budget?.observe(res.usage.inputTokens, messages.length, messages, sending.slice(messages.length));
      deps.onActivity?.();
      const answer: ChatMessage = { role: 'assistant', content: res.text, ...(res.toolCalls.length > 0 ? { toolCalls: res.toolCalls } : {}), ...(res.reasoning.length > 0 ? { reasoning: res.reasoning } : {}) };
      const plainReminder = res.toolCalls.length === 0 && remindersLeft > 0 ? (deps.plainTextReminder ?? (() => CLOSING_REMINDER))(res.text, remindersLeft) : null;
      if (plainReminder !== null && deps.ephemeralReminders === true) {
        remindersLeft--;
        reminded = [answer, { role: 'user', content: plainReminder }];
        recorder.append([{ type: 'event_msg', ts: ts(), payload: { kind: 'answer_reminded', detail: res.text } }]);
        continue;
      }
      push(answer);
      if (res.text.trim() !== '') deps.publish({ type: 'ai_response', agent, text: res.text });
      await deps.afterResponse?.(res.text);

      const thought = parseThought(res.text);
      if (thought.kind === 'ok') {
        deps.publish({ type: 'thinking', agent, text: renderThought(thought.thought) });
        deps.compressor?.notePlan(step, thought.thought);
      }
      const missing = thought.kind === 'absent' && flags.requireThought && res.toolCalls.length > 0;
      if (thought.kind === 'invalid' || missing) {
        thoughtFailures++;
        const detail = thought.kind === 'invalid' ? thought.error : 'tool calls without a <thought> block';
        recorder.append([{ type: 'event_msg', ts: ts(), payload: { kind: 'thought_invalid', detail } }]);
        deps.publish({ type: 'log', level: 'warn', source: THOUGHT_LOG_SOURCE, message: `${agent}: no valid <thought> block (${detail}); the step went on` });
      }

      if (res.toolCalls.length === 0) {
        if (plainReminder === null) return stop('plain_text', stripThought(res.text));
        remindersLeft--;
        push({ role: 'user', content: plainReminder });
        continue;
      }

      // write-ahead: a call that can change anything runs only once its call is durable (at most once across kill -9);
      // results reach the rollout in call order as soon as they are in, so an effect's record carries those before it
      const beforeEffect = (): Promise<void> => (recorder.writeAhead ?? recorder.drain).call(recorder);
      const early = new InOrderResults(res.toolCalls.map((c) => c.id), (o) => recorder.append([{ type: 'response_item', ts: ts(), payload: toolMessage(o) }]));
      // one result never fills a small window: its cap follows the window (and what an overflow answer taught)
      const maxResultChars = await budget?.resultChars(messages, res.toolCalls.length);
      const { outcomes, fatal } = await deps.tools.runBatch(res.toolCalls, { signal: deps.signal, maxParallel: flags.maxParallelReadOnlyTools, beforeEffect, onOutcome: (o) => early.add(o), ...(maxResultChars !== undefined ? { maxResultChars } : {}) });
      let exit: ExitHandoff | undefined;
      outcomes.forEach((o, i) => {
        if (i < early.recorded) messages.push(toolMessage(o));
        else push(toolMessage(o));
        exit ??= o.exit;
      });
      deps.onActivity?.();
      if (deps.signal.aborted) return stop(abortStopReason(deps.signal), '');
      if (fatal !== null) {
        recorder.append([{ type: 'event_msg', ts: ts(), payload: { kind: 'turn_aborted', detail: fatal } }]);
        return stop('panic', '', { error: fatal });
      }
      if (exit && flags.stopOnFinish) return stop('agent_exit', deliverableText(exit, res.text), { exit });
    }
    return stop('max_steps', lastAssistantText(messages), { error: `step limit ${flags.maxSteps} reached` });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    recorder.append([{ type: 'event_msg', ts: ts(), payload: { kind: 'turn_aborted', detail: message } }]);
    if (deps.signal.aborted) return stop(abortStopReason(deps.signal), '', { error: message });
    return stop('panic', '', { error: message });
  }
}

function toolMessage(o: ToolCallOutcome): ChatMessage {
  return { role: 'tool', toolCallId: o.callId, name: o.name, content: o.content };
}

/** Records a batch's results in call order as they come in: a result waits only for those of the calls before it. */
class InOrderResults {
  private readonly got: (ToolCallOutcome | undefined)[] = [];
  /** How many leading calls have their result recorded. */
  recorded = 0;
  constructor(
    private readonly order: readonly string[],
    private readonly record: (o: ToolCallOutcome) => void,
  ) {}
  add(o: ToolCallOutcome): void {
    // by position: the first call of that id still without a result (ids are unique, but a model's may not be)
    const at = this.order.findIndex((id, k) => id === o.callId && this.got[k] === undefined);
    if (at < 0) return;
    this.got[at] = o;
    for (let next = this.got[this.recorded]; next; next = this.got[this.recorded]) {
      this.record(next);
      this.recorded++;
    }
  }
}

/** The full deliverable of an agent_exit: its conclusion (an explicit `deliverable`, from older handoffs, wins), else the reply. */
export function deliverableText(exit: ExitHandoff, replyText: string): string {
  if (exit.deliverable && exit.deliverable.trim() !== '') return exit.deliverable;
  if (exit.conclusion.trim() !== '') return exit.conclusion;
  return stripThought(replyText);
}

/** `contextWindow`: the window the server's overflow answer reported (LlmError.detail, llm/AGENTS.md), when it did. */
type CallResult = { kind: 'ok'; res: LlmResponse } | { kind: 'stop'; stopReason: StopReason; error: string } | { kind: 'overflow'; error: string; contextWindow?: number; promptTokens?: number };

async function callWithRetries(deps: LoopDeps, messages: readonly ChatMessage[], step: number, account: (u: CallUsage) => void): Promise<CallResult> {
  let lastError = '';
  // requests this step has made so far: retry events number them as one sequence across the step's tries
  let sent = 0;
  let wait = 0;
  const tries = deps.flags.stepRetries + 1;
  for (let attempt = 0; attempt < tries; attempt++) {
    if (attempt > 0) {
      const ok = await sleepUnlessAborted(deps.clock, wait, deps.signal);
      if (!ok) break;
    }
    deps.publish({ type: 'ai_stream_start', agent: deps.agent, step });
    let reported = false;
    const tools = deps.tools.defs();
    try {
      const pending = deps.engine.call({
        messages,
        tools,
        maxTokens: deps.maxTokens,
        temperature: deps.temperature,
        signal: deps.signal,
        agent: deps.agent,
        attempt: { step, before: sent, roundsLeft: tries - attempt },
        onTextDelta: (text) => {
          deps.onActivity?.();
          deps.publish({ type: 'ai_chunk', agent: deps.agent, text });
        },
        onReasoningDelta: () => deps.onActivity?.(),
        onUsage: (u) => {
          reported = true;
          account(u);
        },
      });
      deps.recorder.afterSend?.();
      const res = await pending;
      // an engine without the reliability layer (a test double) reports nothing: its response is the one call
      if (!reported) account({ provider: res.provider, model: res.model, usage: res.usage });
      // what the provider counted for exactly this prompt: later estimates for its model are scaled by it (Claude)
      deps.tokens?.observeUsage(res.model, { messages, tools }, res.usage.inputTokens);
      deps.publish({ type: 'ai_stream_end', agent: deps.agent });
      return { kind: 'ok', res };
    } catch (err) {
      deps.publish({ type: 'ai_stream_end', agent: deps.agent });
      lastError = err instanceof Error ? err.message : String(err);
      if (deps.signal.aborted) break;
      if (isCircuitOpen(err)) return { kind: 'stop', stopReason: 'circuit_breaker_open', error: lastError };
      if (errorCode(err) === 'CONTEXT_LENGTH') {
        const detail = (err as { detail?: { contextWindow?: unknown; promptTokens?: unknown } } | null)?.detail;
        const w = detail?.contextWindow;
        const n = detail?.promptTokens;
        return { kind: 'overflow', error: lastError, ...(typeof w === 'number' ? { contextWindow: w } : {}), ...(typeof n === 'number' ? { promptTokens: n } : {}) };
      }
      // the engine already gave up on something a retry cannot fix (bad key, bad URL, dead local server, spent budget)
      if ((err as { retryable?: unknown } | null)?.retryable === false) break;
      const made = attemptsOf(err);
      sent += made;
      if (attempt + 1 < tries) {
        // full jitter, like the engine's own backoff: agents that failed together do not try again together
        wait = Math.round((deps.random ?? Math.random)() * (deps.retryBackoffMs ?? 1000) * 2 ** attempt);
        stepRetryEvent(deps, err, { step, attempt: sent + 1, maxAttempts: sent + made * (tries - attempt - 1), waitMs: wait, reason: lastError });
      }
    }
  }
  if (deps.signal.aborted) return { kind: 'stop', stopReason: abortStopReason(deps.signal), error: lastError };
  return { kind: 'stop', stopReason: 'llm_error', error: lastError };
}

/** Requests the failed call made (the given-up error counts them; an engine without that layer made one). */
function attemptsOf(err: unknown): number {
  const n = (err as { attempts?: unknown } | null)?.attempts;
  return typeof n === 'number' && n > 0 ? n : 1;
}

/** The line that says the whole step is tried again, in the same numbering as the engine's retry lines. */
function stepRetryEvent(deps: LoopDeps, err: unknown, at: { step: number; attempt: number; maxAttempts: number; waitMs: number; reason: string }): void {
  const { provider, model } = deps.engine.describe();
  const code = errorCode(err);
  const status = (err as { status?: unknown } | null)?.status;
  deps.publish({
    type: 'llm_retry',
    agent: deps.agent,
    provider,
    model,
    step: at.step,
    attempt: at.attempt,
    maxAttempts: Math.max(at.attempt, at.maxAttempts),
    waitMs: at.waitMs,
    reason: at.reason.split('\n')[0] ?? at.reason,
    stepRetry: true,
    ...(code !== '' ? { code } : {}),
    ...(typeof status === 'number' ? { status } : {}),
  });
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function isCircuitOpen(err: unknown): boolean {
  return /circuit/i.test(errorCode(err));
}

function lastAssistantText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'assistant' && m.content.trim() !== '') return stripThought(m.content);
  }
  return '';
}
