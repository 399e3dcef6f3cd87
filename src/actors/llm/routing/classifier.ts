// The fast-model difficulty classifier: {"tier": fast|balanced|high} within a deadline, else null.
import { z } from 'zod';
import type { Clock } from '../../../runtime/actor.js';
import type { ChatMessage } from '../../../runtime/protocol/index.js';
import type { Tier } from '../../../runtime/config/index.js';
import type { LlmEngine, LlmRequest } from '../types.js';

const TierReply = z.object({ tier: z.enum(['fast', 'balanced', 'high']) });

export const CLASSIFIER_PROMPT =
  'You route coding-assistant requests to a model tier. Reply with JSON only: {"tier":"fast"} for trivial ' +
  'lookups or chit-chat, {"tier":"balanced"} for ordinary edits and questions, {"tier":"high"} for design, ' +
  'multi-file changes, debugging or anything subtle.';

/** Parses the first JSON object in the reply. */
export function parseTier(text: string): Tier | null {
  const m = /\{[^{}]*\}/.exec(text);
  if (m === null) return null;
  try {
    const r = TierReply.safeParse(JSON.parse(m[0]));
    return r.success ? r.data.tier : null;
  } catch {
    return null;
  }
}

export async function classify(
  engine: LlmEngine,
  task: string,
  opts: { agent: string; timeoutMs: number; clock: Clock; signal: AbortSignal; onUsage?: LlmRequest['onUsage'] },
): Promise<{ tier: Tier } | { error: string }> {
  const ctl = new AbortController();
  const timer = opts.clock.setTimeout(() => ctl.abort(new Error('classifier timed out')), opts.timeoutMs);
  const messages: ChatMessage[] = [
    { role: 'system', content: CLASSIFIER_PROMPT },
    { role: 'user', content: task.slice(0, 4000) },
  ];
  try {
    const res = await engine.call({
      messages,
      tools: [],
      maxTokens: 20,
      signal: AbortSignal.any([opts.signal, ctl.signal]),
      agent: `${opts.agent}:router`,
      // the classifier's tokens are the agent's tokens too
      onUsage: opts.onUsage,
    });
    const tier = parseTier(res.text);
    return tier !== null ? { tier } : { error: `classifier reply is not {"tier":…}: ${res.text.slice(0, 80)}` };
  } catch (e) {
    opts.signal.throwIfAborted();
    return { error: ctl.signal.aborted ? `classifier timed out after ${opts.timeoutMs} ms` : `classifier failed: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    timer.cancel();
  }
}
