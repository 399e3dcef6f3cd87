// Messages SSE events → text, thinking blocks (with signatures), tool calls, usage and stop reason.
import type { FinishReason, Reasoning, ToolCall, Usage } from '../../../runtime/protocol/index.js';
import type { LlmRequest } from '../types.js';
import { num, parseData, rec, str, streamError, type SseEvent } from './sse-decode.js';
import { UNCAPPED, type AnswerBudget } from './common.js';

export function finishOf(reason: string | null | undefined): FinishReason {
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

/** Anthropic's tolerant JSON for `event: error` (a non-JSON payload is reported as text, as the SDK does). */
function safeJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}

export class AnthropicAccumulator {
  text = '';
  finish: FinishReason = 'unknown';
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
  /** Set by `message_stop`; a stream without it was cut short. Later events are ignored. */
  stopped = false;
  private readonly blocks = new Map<number, Building>();

  constructor(
    private readonly req: Pick<LlmRequest, 'onTextDelta' | 'onReasoningDelta'>,
    private readonly budget: Pick<AnswerBudget, 'take'> = UNCAPPED,
  ) {}

  onEvent(ev: SseEvent): void {
    if (this.stopped) return;
    // like the SDK: unnamed events and pings carry nothing; `event: error` is a failure reported inside a 200
    if (ev.event === undefined || ev.event === 'ping') return;
    if (ev.event === 'error') throw streamError(safeJson(ev.data));
    if (ev.data === '') return;
    const e = rec(parseData(ev.data));
    if (e === undefined) return;
    switch (str(e['type'])) {
      case 'message_start':
        this.onStart(rec(rec(e['message'])?.['usage']));
        break;
      case 'content_block_start':
        this.onBlockStart(num(e['index']) ?? 0, rec(e['content_block']));
        break;
      case 'content_block_delta':
        this.onBlockDelta(num(e['index']) ?? 0, rec(e['delta']));
        break;
      case 'message_delta': {
        const reason = str(rec(e['delta'])?.['stop_reason']);
        if (reason !== undefined) this.finish = finishOf(reason);
        const out = num(rec(e['usage'])?.['output_tokens']);
        if (out !== undefined) this.usage.outputTokens = out;
        break;
      }
      case 'message_stop':
        this.stopped = true;
        break;
      case 'error':
        throw streamError(e);
      default:
        // content_block_stop and event types newer than this code carry nothing we keep
        break;
    }
  }

  private onStart(u: Record<string, unknown> | undefined): void {
    if (u === undefined) return;
    const cached = num(u['cache_read_input_tokens']) ?? 0;
    this.usage.cachedInputTokens = cached;
    this.usage.inputTokens = (num(u['input_tokens']) ?? 0) + cached + (num(u['cache_creation_input_tokens']) ?? 0);
    this.usage.outputTokens = num(u['output_tokens']) ?? 0;
  }

  private onBlockStart(index: number, b: Record<string, unknown> | undefined): void {
    switch (str(b?.['type'])) {
      case 'text': {
        this.blocks.set(index, { kind: 'text' });
        const t = str(b?.['text']) ?? '';
        if (t !== '') this.emitText(t);
        break;
      }
      case 'thinking':
        this.blocks.set(index, { kind: 'thinking', text: str(b?.['thinking']) ?? '', signature: str(b?.['signature']) ?? '' });
        break;
      case 'redacted_thinking':
        this.blocks.set(index, { kind: 'redacted', data: str(b?.['data']) ?? '' });
        break;
      case 'tool_use':
        this.blocks.set(index, { kind: 'tool', id: str(b?.['id']) ?? '', name: str(b?.['name']) ?? '', args: '' });
        break;
      default:
        break;
    }
  }

  private onBlockDelta(index: number, d: Record<string, unknown> | undefined): void {
    const cur = this.blocks.get(index);
    switch (str(d?.['type'])) {
      case 'text_delta': {
        const t = str(d?.['text']);
        if (t !== undefined) this.emitText(t);
        break;
      }
      case 'thinking_delta': {
        const t = str(d?.['thinking']);
        if (t !== undefined && cur?.kind === 'thinking') {
          this.budget.take(t.length);
          cur.text += t;
          this.req.onReasoningDelta?.(t);
        }
        break;
      }
      case 'signature_delta':
        if (cur?.kind === 'thinking') cur.signature += str(d?.['signature']) ?? '';
        break;
      case 'input_json_delta':
        if (cur?.kind === 'tool') {
          const part = str(d?.['partial_json']) ?? '';
          this.budget.take(part.length);
          cur.args += part;
        }
        break;
      default:
        break;
    }
  }

  private emitText(t: string): void {
    this.budget.take(t.length);
    this.text += t;
    this.req.onTextDelta?.(t);
  }

  /** Blocks in index order: thinking (with signature) and redacted thinking as reasoning, tool_use as calls. */
  result(): { reasoning: Reasoning[]; toolCalls: ToolCall[] } {
    const reasoning: Reasoning[] = [];
    const toolCalls: ToolCall[] = [];
    for (const [, b] of [...this.blocks.entries()].sort((x, y) => x[0] - y[0])) {
      if (b.kind === 'thinking') reasoning.push({ text: b.text, signature: b.signature });
      else if (b.kind === 'redacted') reasoning.push({ text: '', redacted: b.data });
      else if (b.kind === 'tool') toolCalls.push({ id: b.id, name: b.name, arguments: b.args });
    }
    return { reasoning, toolCalls };
  }
}
