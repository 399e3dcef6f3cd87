// Meta: one LLM answer as JSON designing a custom agent; zod-validated, retried up to 5 times.
import type { LlmEngine } from '../llm/types.js';
import type { ChatMessage, Usage } from './wire-types.js';
import type { Publish, Recorder } from './loop-contract.js';
import { CustomAgentDesignSchema, type CustomAgentDesign } from './run-types.js';

export const META_MAX_ATTEMPTS = 5;

export interface MetaDeps {
  engine: LlmEngine;
  recorder: Recorder;
  publish: Publish;
  signal: AbortSignal;
  now: () => number;
  /** Tools the design may choose from (the Director's palette without delegations and agent_exit). */
  palette: readonly string[];
}

export type MetaResult =
  | { ok: true; design: CustomAgentDesign; text: string; attempts: number; usage: Usage }
  | { ok: false; error: string; attempts: number; usage: Usage; cancelled: boolean };

export function choosablePalette(palette: readonly string[]): string[] {
  return palette.filter((t) => !t.startsWith('delegate_') && t !== 'agent_exit').sort();
}

export async function runMeta(deps: MetaDeps, initial: readonly ChatMessage[]): Promise<MetaResult> {
  const messages: ChatMessage[] = [...initial];
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  const allowed = new Set(choosablePalette(deps.palette));
  const push = (m: ChatMessage): void => {
    messages.push(m);
    deps.recorder.append([{ type: 'response_item', ts: deps.now(), payload: m }]);
  };
  deps.recorder.append(initial.map((m) => ({ type: 'response_item' as const, ts: deps.now(), payload: m })));
  let lastError = 'no answer';
  for (let attempt = 1; attempt <= META_MAX_ATTEMPTS; attempt++) {
    if (deps.signal.aborted) return { ok: false, error: 'cancelled', attempts: attempt - 1, usage, cancelled: true };
    let text: string;
    try {
      const res = await deps.engine.call({ messages, tools: [], signal: deps.signal, agent: 'meta' });
      usage.inputTokens += res.usage.inputTokens;
      usage.outputTokens += res.usage.outputTokens;
      text = res.text;
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
      if (deps.signal.aborted) return { ok: false, error: lastError, attempts: attempt, usage, cancelled: true };
      continue;
    }
    push({ role: 'assistant', content: text });
    const checked = validateDesign(text, allowed);
    if (checked.ok) return { ok: true, design: checked.design, text: JSON.stringify(checked.design, null, 2), attempts: attempt, usage };
    lastError = checked.error;
    deps.recorder.append([{ type: 'event_msg', ts: deps.now(), payload: { kind: 'meta_invalid_design', detail: `attempt ${attempt}: ${lastError}` } }]);
    push({ role: 'user', content: `Your answer is not a valid design: ${lastError}\nAnswer again with only the JSON object.` });
  }
  return { ok: false, error: `no valid design after ${META_MAX_ATTEMPTS} attempts: ${lastError}`, attempts: META_MAX_ATTEMPTS, usage, cancelled: false };
}

export function validateDesign(text: string, allowed: ReadonlySet<string>): { ok: true; design: CustomAgentDesign } | { ok: false; error: string } {
  const json = extractJson(text);
  if (json === null) return { ok: false, error: 'no JSON object found' };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `invalid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = CustomAgentDesignSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  const unknown = parsed.data.tools.filter((t) => !allowed.has(t));
  if (unknown.length > 0) return { ok: false, error: `tools not in the available list: ${unknown.join(', ')} (choose from: ${[...allowed].join(', ')})` };
  return { ok: true, design: { ...parsed.data, tools: [...new Set(parsed.data.tools)].sort() } };
}

function extractJson(text: string): string | null {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1] : text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  return start >= 0 && end > start ? body.slice(start, end + 1) : null;
}

export function metaBrief(task: string, palette: readonly string[]): string {
  return `${task.trim()}\n\nAvailable tools: ${choosablePalette(palette).join(', ')}`;
}
