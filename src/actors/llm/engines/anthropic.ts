// api_format = "anthropic": Messages requests through the official SDK, SSE decoded by us; thinking blocks kept with signatures.
// type-only: the SDK module graph loads on the first call, not when the worker starts
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, ToolCall } from '../../../runtime/protocol/index.js';
import type { ProviderConfig } from '../../../runtime/config/index.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';
import { LlmError } from '../errors.js';
import { AnswerBudget, lazyRetrying, markCutCalls, pick, sdkClientOptions, sortedTools, UNCAPPED, wireArguments } from './common.js';
import type { RawEngineOptions } from './openai.js';
import { AnthropicAccumulator } from './anthropic-stream.js';
import { streamRequest } from './sse-decode.js';

/** reasoning_effort → thinking.budget_tokens; any other value means thinking is off. */
export const THINKING_BUDGETS: Readonly<Record<string, number>> = { minimal: 1024, low: 8192, medium: 24576, high: 32000 };
/** Messages requires max_tokens; used when neither the call nor the provider sets it. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

type Block = Anthropic.ContentBlockParam;

/** A tool_use block's input: the call's arguments, or `{}` for a cut or broken call (wireArguments). */
function parseInput(tc: ToolCall): Record<string, unknown> {
  return JSON.parse(wireArguments(tc)) as Record<string, unknown>;
}

function assistantBlocks(m: Extract<ChatMessage, { role: 'assistant' }>): Block[] {
  const blocks: Block[] = [];
  // thinking blocks go back first, unmodified, with their signature (the API verifies them)
  for (const r of m.reasoning ?? []) {
    if (r.redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: r.redacted });
    else if (r.signature !== undefined) blocks.push({ type: 'thinking', thinking: r.text, signature: r.signature });
  }
  if (m.content !== '') blocks.push({ type: 'text', text: m.content });
  for (const tc of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: tc.id, name: tc.name, input: parseInput(tc) });
  return blocks;
}

export function toAnthropic(messages: readonly ChatMessage[]): { system: string; messages: Anthropic.MessageParam[] } {
  const system: string[] = [];
  const out: Anthropic.MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]): void => {
    const last = out[out.length - 1];
    // the API wants alternating roles: consecutive tool results / user texts merge into one turn
    if (last !== undefined && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        system.push(m.content);
        break;
      case 'user':
        push('user', [{ type: 'text', text: m.content }]);
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
        break;
      case 'assistant':
        push('assistant', assistantBlocks(m));
        break;
    }
  }
  return { system: system.join('\n\n'), messages: out };
}

export class AnthropicEngine implements LlmEngine {
  constructor(
    private readonly provider: ProviderConfig,
    private readonly opts: RawEngineOptions = {},
  ) {}

  /** The SDK client, imported and built on first use (see lazyRetrying). */
  private readonly sdk = lazyRetrying(async () => {
    const { Anthropic } = await import('@anthropic-ai/sdk'); // named, as for openai
    return new Anthropic({
      ...sdkClientOptions(this.provider, this.opts.fetch),
      // we register no tracer provider, yet the SDK would build a (no-op) span and its attributes per call
      openTelemetry: false,
    });
  });

  describe(): { provider: string; model: string } {
    return { provider: this.provider.name, model: this.provider.model };
  }

  async call(req: LlmRequest): Promise<LlmResponse> {
    const p = this.provider;
    const { system, messages } = toAnthropic(req.messages);
    const budget = p.reasoningEffort !== undefined ? THINKING_BUDGETS[p.reasoningEffort] : undefined;
    let maxTokens = pick(req.maxTokens, p.maxTokens) ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
    if (budget !== undefined && maxTokens <= budget) maxTokens = budget + ANTHROPIC_DEFAULT_MAX_TOKENS;
    // what stays the same between calls goes first and the growing history after it: each request's bytes are then
    // a prefix of the next (the provider's prompt cache), and a per-call max_tokens only moves the tail
    // (filled in key order, no spread of a head object: the request's bytes are pinned by engines.test.ts)
    const wire: Partial<Anthropic.MessageCreateParamsStreaming> = { model: p.model, stream: true };
    if (system !== '') wire.system = system;
    const tools = sortedTools(req.tools);
    if (tools.length > 0) {
      wire.tools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Anthropic.Tool.InputSchema }));
    }
    if (budget !== undefined) wire.thinking = { type: 'enabled', budget_tokens: budget };
    wire.messages = messages;
    wire.max_tokens = maxTokens;
    const body = wire as Anthropic.MessageCreateParamsStreaming;
    const temperature = pick(req.temperature, p.temperature);
    // extended thinking rejects a custom temperature
    // (the SDK's types no longer list temperature; the API still accepts it for non-thinking calls)
    if (temperature !== undefined && budget === undefined) (body as unknown as Record<string, unknown>)['temperature'] = temperature;

    const client = await this.sdk();
    const acc = new AnthropicAccumulator(req, this.opts.maxAnswerChars !== undefined ? new AnswerBudget(this.opts.maxAnswerChars) : UNCAPPED);
    await streamRequest(req, (opts) => client.messages.create(body, opts), (ev) => acc.onEvent(ev));
    if (!acc.stopped) throw new LlmError('CONNECTION', 'stream ended before message_stop', true);
    const { reasoning, toolCalls } = acc.result();
    const { text, usage, finish } = acc;
    return { text, toolCalls: markCutCalls(toolCalls, finish), reasoning, usage, finishReason: finish, provider: p.name, model: p.model };
  }
}
