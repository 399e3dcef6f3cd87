// OpenAI Chat Completions wire shapes as the real API emits them: SSE chunks and the non-streaming body.
import { chunksOf, estimateTokens, splitInPieces, type FakeReply } from './script.js';

interface Ids {
  id: string;
  created: number;
  model: string;
}

function chunk(ids: Ids, choices: unknown[], usage?: unknown): string {
  const body: Record<string, unknown> = {
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
    choices,
  };
  if (usage !== undefined) body['usage'] = usage;
  return `data: ${JSON.stringify(body)}\n\n`;
}

const choice = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({
  index: 0,
  delta,
  logprobs: null,
  finish_reason: finish,
});

export function usageOf(reply: FakeReply, promptText: string): Record<string, unknown> {
  const text = chunksOf(reply.text).join('');
  const input = reply.usage?.input ?? estimateTokens(promptText);
  const output = reply.usage?.output ?? estimateTokens(text + (reply.toolCalls ?? []).map((t) => t.arguments).join(''));
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: reply.usage?.cached ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reply.usage?.reasoning ?? 0, audio_tokens: 0 },
  };
}

export function finishOf(reply: FakeReply): string {
  return reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

/** The SSE events of one streamed reply, each a complete `data: …\n\n` frame, ending with [DONE]. */
export function openaiStreamEvents(reply: FakeReply, ids: Ids, promptText: string, includeUsage: boolean): string[] {
  const out: string[] = [chunk(ids, [choice({ role: 'assistant', content: '', refusal: null })])];
  for (const r of chunksOf(reply.reasoning)) out.push(chunk(ids, [choice({ reasoning_content: r })]));
  for (const t of chunksOf(reply.text)) out.push(chunk(ids, [choice({ content: t })]));
  (reply.toolCalls ?? []).forEach((tc, index) => {
    const id = tc.id ?? `call_fake_${index}`;
    out.push(
      chunk(ids, [choice({ tool_calls: [{ index, id, type: 'function', function: { name: tc.name, arguments: '' } }] })]),
    );
    for (const piece of splitInPieces(tc.arguments, 3)) {
      out.push(chunk(ids, [choice({ tool_calls: [{ index, function: { arguments: piece } }] })]));
    }
  });
  out.push(chunk(ids, [choice({}, finishOf(reply))]));
  if (includeUsage) out.push(chunk(ids, [], usageOf(reply, promptText)));
  out.push('data: [DONE]\n\n');
  return out;
}

/** The non-streaming `chat.completion` body. */
export function openaiJsonBody(reply: FakeReply, ids: Ids, promptText: string): Record<string, unknown> {
  const toolCalls = (reply.toolCalls ?? []).map((tc, i) => ({
    id: tc.id ?? `call_fake_${i}`,
    type: 'function',
    function: { name: tc.name, arguments: tc.arguments },
  }));
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: chunksOf(reply.text).join('') || null,
    refusal: null,
    annotations: [],
  };
  if (reply.reasoning !== undefined) message['reasoning_content'] = chunksOf(reply.reasoning).join('');
  if (toolCalls.length > 0) message['tool_calls'] = toolCalls;
  return {
    id: ids.id,
    object: 'chat.completion',
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(reply) }],
    usage: usageOf(reply, promptText),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/** `code`: the error's own code when OpenAI sends one (e.g. `context_length_exceeded`); else the type. */
export function openaiErrorBody(status: number, message: string, code?: string): Record<string, unknown> {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: code ?? type } };
}
