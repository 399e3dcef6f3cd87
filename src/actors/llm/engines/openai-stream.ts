// Chat Completions SSE events → text, reasoning, tool calls, usage and finish reason (what the SDK's Stream did).
import type { FinishReason, Usage } from '../../../runtime/protocol/index.js';
import type { LlmRequest } from '../types.js';
import { ToolCallAssembler, UNCAPPED, type AnswerBudget } from './common.js';
import { num, parseData, rec, str, streamError, type SseEvent } from './sse-decode.js';

export function finishOf(reason: string | null | undefined): FinishReason {
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

export class OpenAiAccumulator {
  text = '';
  reasoningText = '';
  finish: FinishReason = 'unknown';
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  readonly calls = new ToolCallAssembler();
  /** Set by `data: [DONE]`; like the SDK, anything after it is ignored. */
  done = false;

  constructor(
    private readonly req: Pick<LlmRequest, 'onTextDelta' | 'onReasoningDelta'>,
    private readonly budget: Pick<AnswerBudget, 'take'> = UNCAPPED,
  ) {}

  onEvent(ev: SseEvent): void {
    if (this.done) return;
    if (ev.data.startsWith('[DONE]')) {
      this.done = true;
      return;
    }
    // keep-alive frames with an empty payload carry nothing (the SDK would choke on them)
    if (ev.data.trim() === '') return;
    const chunk = rec(parseData(ev.data));
    if (ev.event === 'error' || (chunk !== undefined && chunk['error'] !== undefined && chunk['error'] !== null)) throw streamError(chunk);
    if (chunk === undefined) return;
    this.onUsage(rec(chunk['usage']));
    const choices = chunk['choices'];
    const choice = Array.isArray(choices) ? rec(choices[0] as unknown) : undefined;
    if (choice === undefined) return;
    const delta = rec(choice['delta']);
    if (delta !== undefined) this.onDelta(delta);
    const reason = str(choice['finish_reason']);
    if (reason !== undefined && reason !== '') this.finish = finishOf(reason);
  }

  private onUsage(u: Record<string, unknown> | undefined): void {
    if (u === undefined) return;
    this.usage.inputTokens = num(u['prompt_tokens']) ?? 0;
    this.usage.outputTokens = num(u['completion_tokens']) ?? 0;
    this.usage.cachedInputTokens = num(rec(u['prompt_tokens_details'])?.['cached_tokens']) ?? 0;
    this.usage.reasoningTokens = num(rec(u['completion_tokens_details'])?.['reasoning_tokens']) ?? 0;
  }

  private onDelta(delta: Record<string, unknown>): void {
    // thinking-mode compatible servers (DeepSeek, vLLM, Ollama) name the field either way
    const r = str(delta['reasoning_content']) ?? str(delta['reasoning']);
    if (r !== undefined && r !== '') {
      this.budget.take(r.length);
      this.reasoningText += r;
      this.req.onReasoningDelta?.(r);
    }
    const content = str(delta['content']);
    if (content !== undefined && content !== '') {
      this.budget.take(content.length);
      this.text += content;
      this.req.onTextDelta?.(content);
    }
    const toolCalls = delta['tool_calls'];
    if (!Array.isArray(toolCalls)) return;
    for (const item of toolCalls as unknown[]) {
      const tc = rec(item);
      if (tc === undefined) continue;
      const index = num(tc['index']) ?? 0;
      const fn = rec(tc['function']);
      this.calls.start(index, str(tc['id']), str(fn?.['name']));
      const args = str(fn?.['arguments']);
      if (args !== undefined) {
        this.budget.take(args.length);
        this.calls.append(index, args);
      }
    }
  }
}
