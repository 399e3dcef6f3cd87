// api_format = "openai": Chat Completions streaming through the official SDK (OpenAI and compatible servers).
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ChatMessage, FinishReason, Reasoning, Usage } from '../../../runtime/protocol/index.js';
import type { ProviderConfig } from '../../../runtime/config/index.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';
import { LlmError } from '../errors.js';
import { AGENT_HEADER, pick, sortedTools, ToolCallAssembler } from './common.js';

export interface RawEngineOptions {
  /** Injected fetch (tests, benchmarks); defaults to the global one. */
  fetch?: typeof fetch;
}

type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

function toOpenAiMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return m.name !== undefined ? { role: 'user', content: m.content, name: m.name } : { role: 'user', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      case 'assistant': {
        const out: ChatCompletionMessageParam & Record<string, unknown> = { role: 'assistant', content: m.content };
        if (m.toolCalls !== undefined && m.toolCalls.length > 0) {
          out.tool_calls = m.toolCalls.map((tc) => ({ id: tc.id, type: 'function' as const, function: { name: tc.name, arguments: tc.arguments } }));
          // thinking-mode compatible servers need the turn's reasoning back while tool calls are pending
          const reasoning = (m.reasoning ?? []).map((r) => r.text).join('');
          if (reasoning !== '') out['reasoning_content'] = reasoning;
        }
        return out;
      }
    }
  });
}

function finishOf(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'unknown';
  }
}

export class OpenAiEngine implements LlmEngine {
  private readonly client: OpenAI;
  constructor(
    private readonly provider: ProviderConfig,
    opts: RawEngineOptions = {},
  ) {
    // retries and timeouts belong to the reliability stack, not the SDK
    this.client = new OpenAI({
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
    const body: ChatCompletionCreateParamsStreaming = {
      model: p.model,
      messages: toOpenAiMessages(req.messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    const tools = sortedTools(req.tools);
    if (tools.length > 0) {
      body.tools = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    }
    const maxTokens = pick(req.maxTokens, p.maxTokens);
    if (maxTokens !== undefined) body.max_tokens = maxTokens;
    const temperature = pick(req.temperature, p.temperature);
    if (temperature !== undefined) body.temperature = temperature;
    if (p.reasoningEffort !== undefined) (body as unknown as Record<string, unknown>)['reasoning_effort'] = p.reasoningEffort;

    const stream = await this.client.chat.completions.create(body, { signal: req.signal, headers: { [AGENT_HEADER]: req.agent } });
    let text = '';
    let reasoningText = '';
    let finish: FinishReason = 'unknown';
    const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
    const calls = new ToolCallAssembler();
    for await (const chunk of stream) {
      if (chunk.usage) {
        usage.inputTokens = chunk.usage.prompt_tokens;
        usage.outputTokens = chunk.usage.completion_tokens;
        usage.cachedInputTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        usage.reasoningTokens = chunk.usage.completion_tokens_details?.reasoning_tokens ?? 0;
      }
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      const delta = choice.delta as Delta | undefined;
      if (delta !== undefined) {
        const r = delta.reasoning_content ?? delta.reasoning;
        if (typeof r === 'string' && r !== '') {
          reasoningText += r;
          req.onReasoningDelta?.(r);
        }
        if (typeof delta.content === 'string' && delta.content !== '') {
          text += delta.content;
          req.onTextDelta?.(delta.content);
        }
        for (const tc of delta.tool_calls ?? []) {
          calls.start(tc.index, tc.id, tc.function?.name);
          if (tc.function?.arguments !== undefined) calls.append(tc.index, tc.function.arguments);
        }
      }
      if (choice.finish_reason) finish = finishOf(choice.finish_reason);
    }
    // the SDK ends iteration quietly on abort; a stream without a finish reason was cut short
    req.signal.throwIfAborted();
    if (finish === 'unknown') throw new LlmError('CONNECTION', 'stream ended before a finish reason', true);
    const reasoning: Reasoning[] = reasoningText !== '' ? [{ text: reasoningText }] : [];
    return { text, toolCalls: calls.result(), reasoning, usage, finishReason: finish, provider: p.name, model: p.model };
  }
}
