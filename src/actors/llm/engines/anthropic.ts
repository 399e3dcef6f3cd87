// api_format = "anthropic": Messages streaming through the official SDK; thinking blocks kept with signatures.
import Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, FinishReason, Reasoning, ToolCall, Usage } from '../../../runtime/protocol/index.js';
import type { ProviderConfig } from '../../../runtime/config/index.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';
import { LlmError } from '../errors.js';
import { AGENT_HEADER, pick, sortedTools } from './common.js';
import type { RawEngineOptions } from './openai.js';

/** reasoning_effort → thinking.budget_tokens; any other value means thinking is off. */
export const THINKING_BUDGETS: Readonly<Record<string, number>> = { minimal: 1024, low: 8192, medium: 24576, high: 32000 };
/** Messages requires max_tokens; used when neither the call nor the provider sets it. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

type Block = Anthropic.ContentBlockParam;

function parseInput(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args === '' ? '{}' : args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function assistantBlocks(m: Extract<ChatMessage, { role: 'assistant' }>): Block[] {
  const blocks: Block[] = [];
  // thinking blocks go back first, unmodified, with their signature (the API verifies them)
  for (const r of m.reasoning ?? []) {
    if (r.redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: r.redacted });
    else if (r.signature !== undefined) blocks.push({ type: 'thinking', thinking: r.text, signature: r.signature });
  }
  if (m.content !== '') blocks.push({ type: 'text', text: m.content });
  for (const tc of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: tc.id, name: tc.name, input: parseInput(tc.arguments) });
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

function finishOf(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'unknown';
  }
}

type Building =
  | { kind: 'text' }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; id: string; name: string; args: string };

export class AnthropicEngine implements LlmEngine {
  private readonly client: Anthropic;
  constructor(
    private readonly provider: ProviderConfig,
    opts: RawEngineOptions = {},
  ) {
    this.client = new Anthropic({
      apiKey: provider.apiKey,
      baseURL: provider.apiBaseUrl,
      maxRetries: 0,
      timeout: 24 * 3_600_000,
      ...(opts.fetch !== undefined ? { fetch: opts.fetch } : {}),
    });
  }

  describe(): { provider: string; model: string } {
    return { provider: this.provider.name, model: this.provider.model };
  }

  async call(req: LlmRequest): Promise<LlmResponse> {
    const p = this.provider;
    const { system, messages } = toAnthropic(req.messages);
    const budget = p.reasoningEffort !== undefined ? THINKING_BUDGETS[p.reasoningEffort] : undefined;
    let maxTokens = pick(req.maxTokens, p.maxTokens) ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
    if (budget !== undefined && maxTokens <= budget) maxTokens = budget + ANTHROPIC_DEFAULT_MAX_TOKENS;
    const body: Anthropic.MessageCreateParamsStreaming = { model: p.model, max_tokens: maxTokens, messages, stream: true };
    if (system !== '') body.system = system;
    const tools = sortedTools(req.tools);
    if (tools.length > 0) {
      body.tools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Anthropic.Tool.InputSchema }));
    }
    if (budget !== undefined) body.thinking = { type: 'enabled', budget_tokens: budget };
    const temperature = pick(req.temperature, p.temperature);
    // extended thinking rejects a custom temperature
    // (the SDK's types no longer list temperature; the API still accepts it for non-thinking calls)
    if (temperature !== undefined && budget === undefined) (body as unknown as Record<string, unknown>)['temperature'] = temperature;

    const stream = await this.client.messages.create(body, { signal: req.signal, headers: { [AGENT_HEADER]: req.agent } });
    const blocks = new Map<number, Building>();
    let text = '';
    let finish: FinishReason = 'unknown';
    const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
    let stopped = false;
    for await (const ev of stream) {
      switch (ev.type) {
        case 'message_start': {
          const u = ev.message.usage;
          usage.cachedInputTokens = u.cache_read_input_tokens ?? 0;
          usage.inputTokens = u.input_tokens + usage.cachedInputTokens + (u.cache_creation_input_tokens ?? 0);
          usage.outputTokens = u.output_tokens;
          break;
        }
        case 'content_block_start': {
          const b = ev.content_block;
          if (b.type === 'text') blocks.set(ev.index, { kind: 'text' });
          else if (b.type === 'thinking') blocks.set(ev.index, { kind: 'thinking', text: b.thinking, signature: b.signature });
          else if (b.type === 'redacted_thinking') blocks.set(ev.index, { kind: 'redacted', data: b.data });
          else if (b.type === 'tool_use') blocks.set(ev.index, { kind: 'tool', id: b.id, name: b.name, args: '' });
          if (b.type === 'text' && b.text !== '') {
            text += b.text;
            req.onTextDelta?.(b.text);
          }
          break;
        }
        case 'content_block_delta': {
          const cur = blocks.get(ev.index);
          const d = ev.delta;
          if (d.type === 'text_delta') {
            text += d.text;
            req.onTextDelta?.(d.text);
          } else if (d.type === 'thinking_delta' && cur?.kind === 'thinking') {
            cur.text += d.thinking;
            req.onReasoningDelta?.(d.thinking);
          } else if (d.type === 'signature_delta' && cur?.kind === 'thinking') cur.signature += d.signature;
          else if (d.type === 'input_json_delta' && cur?.kind === 'tool') cur.args += d.partial_json;
          break;
        }
        case 'message_delta':
          finish = finishOf(ev.delta.stop_reason);
          usage.outputTokens = ev.usage.output_tokens;
          break;
        case 'message_stop':
          stopped = true;
          break;
        case 'content_block_stop':
          break;
      }
    }
    // the SDK ends iteration quietly on abort; a stream without message_stop was cut short
    req.signal.throwIfAborted();
    if (!stopped) throw new LlmError('CONNECTION', 'stream ended before message_stop', true);
    const reasoning: Reasoning[] = [];
    const toolCalls: ToolCall[] = [];
    for (const [, b] of [...blocks.entries()].sort((x, y) => x[0] - y[0])) {
      if (b.kind === 'thinking') reasoning.push({ text: b.text, signature: b.signature });
      else if (b.kind === 'redacted') reasoning.push({ text: '', redacted: b.data });
      else if (b.kind === 'tool') toolCalls.push({ id: b.id, name: b.name, arguments: b.args });
    }
    return { text, toolCalls, reasoning, usage, finishReason: finish, provider: p.name, model: p.model };
  }
}
