// api_format = "openai": Chat Completions requests through the official SDK (OpenAI and compatible servers), SSE decoded by us.
// the SDK module graph (~300 modules) loads on the first call (lazyRetrying), not when the worker starts
import type { ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage, Reasoning } from '../../../runtime/protocol/index.js';
import type { ProviderConfig } from '../../../runtime/config/index.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';
import { LlmError } from '../errors.js';
import { AnswerBudget, lazyRetrying, markCutCalls, pick, sdkClientOptions, sortedTools, UNCAPPED, wireArguments } from './common.js';
import { OpenAiAccumulator } from './openai-stream.js';
import { streamRequest } from './sse-decode.js';

export interface RawEngineOptions {
  /** Injected fetch (tests, benchmarks); defaults to the global one. */
  fetch?: typeof fetch;
  /** `[llm] max_answer_chars`: the longest one streamed answer may be (absent = no cap). */
  maxAnswerChars?: number;
}

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
          out.tool_calls = m.toolCalls.map((tc) => ({ id: tc.id, type: 'function' as const, function: { name: tc.name, arguments: wireArguments(tc) } }));
          // thinking-mode compatible servers need the turn's reasoning back while tool calls are pending
          const reasoning = (m.reasoning ?? []).map((r) => r.text).join('');
          if (reasoning !== '') out['reasoning_content'] = reasoning;
        }
        return out;
      }
    }
  });
}

export class OpenAiEngine implements LlmEngine {
  constructor(
    private readonly provider: ProviderConfig,
    private readonly opts: RawEngineOptions = {},
  ) {}

  /** The SDK client, imported and built on first use (see lazyRetrying). */
  private readonly sdk = lazyRetrying(async () => {
    const { OpenAI } = await import('openai'); // the named export: one meaning whether ESM or the thread bundle's CommonJS require
    return new OpenAI(sdkClientOptions(this.provider, this.opts.fetch));
  });

  describe(): { provider: string; model: string } {
    return { provider: this.provider.name, model: this.provider.model };
  }

  async call(req: LlmRequest): Promise<LlmResponse> {
    const p = this.provider;
    // what stays the same between calls goes first and the growing history after it: each request's bytes are then
    // a prefix of the next (the provider's prompt cache), and a per-call max_tokens only moves the tail
    // (filled in key order, no spread of a head object: the request's bytes are pinned by engines.test.ts)
    const wire: Partial<ChatCompletionCreateParamsStreaming> = { model: p.model, stream: true, stream_options: { include_usage: true } };
    const tools = sortedTools(req.tools);
    if (tools.length > 0) {
      wire.tools = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    }
    if (p.reasoningEffort !== undefined) (wire as Record<string, unknown>)['reasoning_effort'] = p.reasoningEffort;
    wire.messages = toOpenAiMessages(req.messages);
    const body = wire as ChatCompletionCreateParamsStreaming;
    const maxTokens = pick(req.maxTokens, p.maxTokens);
    if (maxTokens !== undefined) body.max_tokens = maxTokens;
    const temperature = pick(req.temperature, p.temperature);
    if (temperature !== undefined) body.temperature = temperature;

    const client = await this.sdk();
    const acc = new OpenAiAccumulator(req, this.opts.maxAnswerChars !== undefined ? new AnswerBudget(this.opts.maxAnswerChars) : UNCAPPED);
    await streamRequest(req, (opts) => client.chat.completions.create(body, opts), (ev) => acc.onEvent(ev));
    const { text, reasoningText, finish, usage, calls } = acc;
    if (finish === 'unknown') throw new LlmError('CONNECTION', 'stream ended before a finish reason', true);
    const reasoning: Reasoning[] = reasoningText !== '' ? [{ text: reasoningText }] : [];
    return { text, toolCalls: markCutCalls(calls.result(), finish), reasoning, usage, finishReason: finish, provider: p.name, model: p.model };
  }
}
