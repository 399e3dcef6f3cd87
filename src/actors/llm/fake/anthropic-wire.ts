// Anthropic Messages SSE as the real API emits it: message_start, content_block_*, message_delta, message_stop.
import { chunksOf, estimateTokens, splitInPieces, type FakeReply } from './script.js';

function ev(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

const STOP: Record<string, string> = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' };

export const FAKE_SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';

/** The SSE events of one streamed Messages reply, each a complete `event:/data:` frame. */
export function anthropicStreamEvents(reply: FakeReply, id: string, model: string, promptText: string): string[] {
  const input = reply.usage?.input ?? estimateTokens(promptText);
  const text = chunksOf(reply.text);
  const tools = reply.toolCalls ?? [];
  const output = reply.usage?.output ?? estimateTokens(text.join('') + tools.map((t) => t.arguments).join(''));
  const out: string[] = [
    ev('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: input,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: reply.usage?.cached ?? 0,
          output_tokens: 1,
          service_tier: 'standard',
        },
      },
    }),
  ];
  let index = 0;
  const reasoning = chunksOf(reply.reasoning);
  if (reasoning.length > 0) {
    out.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    out.push(ev('ping', {}));
    for (const r of reasoning) out.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: r } }));
    const signature = reply.signature ?? FAKE_SIGNATURE;
    out.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature } }));
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  if (text.length > 0) {
    out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const t of text) out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: t } }));
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  tools.forEach((tc, i) => {
    const tid = tc.id ?? `toolu_fake_${i}`;
    out.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: tid, name: tc.name, input: {} } }));
    for (const piece of splitInPieces(tc.arguments, 3)) {
      out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
    }
    out.push(ev('content_block_stop', { index }));
    index++;
  });
  const finish = reply.finishReason ?? (tools.length > 0 ? 'tool_calls' : 'stop');
  out.push(
    ev('message_delta', {
      delta: { stop_reason: STOP[finish] ?? 'end_turn', stop_sequence: null },
      usage: { output_tokens: output },
    }),
  );
  out.push(ev('message_stop', {}));
  return out;
}

export function anthropicErrorBody(status: number, message: string): Record<string, unknown> {
  const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}
