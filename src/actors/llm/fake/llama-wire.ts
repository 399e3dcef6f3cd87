// llama-server's Chat Completions wire, as seen from llama-server 0.7.0 (build b11669, Debian sid's llama.cpp-tools):
// the raw capture is test/llm/fixtures/llama-server-b11669.json, and test/llm/llama-wire.test.ts holds these to it.
// Where it differs from OpenAI's (openai-wire.ts): no service_tier / logprobs, system_fingerprint is the build, the
// first delta's content is null, `model` is the loaded model whatever the request named, a tool call's id is 32
// random letters and digits and its first delta already carries the first piece of the arguments, the usage chunk
// has no completion_tokens_details and a `timings` object (without include_usage: no usage, the timings ride on the
// finish chunk), and error bodies are {error: {code, message, type}} sent with `Connection: close`.
import { chunksOf, splitInPieces, type FakeReply } from './script.js';
import { finishOf, usageOf } from './openai-wire.js';

export const LLAMA_BUILD = 'b11669-Debian';

interface Ids {
  id: string;
  created: number;
  /** The server's loaded model (its path or --alias), not the request's `model`. */
  model: string;
}

function chunk(ids: Ids, choices: unknown[], extra: Record<string, unknown> = {}): string {
  const body = { choices, created: ids.created, id: ids.id, model: ids.model, system_fingerprint: LLAMA_BUILD, object: 'chat.completion.chunk', ...extra };
  return `data: ${JSON.stringify(body)}\n\n`;
}

const choice = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({ finish_reason: finish, index: 0, delta });

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A tool call id as llama-server makes them (32 random letters and digits), derived from `seed` (deterministic). */
export function llamaCallId(seed: string): string {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619) >>> 0;
  let out = '';
  for (let i = 0; i < 32; i++) {
    h = (Math.imul(h, 1103515245) + 12345) >>> 0;
    out += ALNUM[(h >>> 8) % ALNUM.length];
  }
  return out;
}

function timings(usage: Record<string, unknown>): Record<string, number> {
  const prompt = Number(usage['prompt_tokens']);
  const cached = Number((usage['prompt_tokens_details'] as { cached_tokens: number }).cached_tokens);
  const predicted = Number(usage['completion_tokens']);
  return { cache_n: cached, prompt_n: prompt - cached, prompt_ms: 1, prompt_per_token_ms: 1, prompt_per_second: 1000, predicted_n: predicted, predicted_ms: predicted, predicted_per_token_ms: 1, predicted_per_second: 1000 };
}

function llamaUsage(reply: FakeReply, promptText: string): Record<string, unknown> {
  const u = usageOf(reply, promptText);
  return { completion_tokens: u['completion_tokens'], prompt_tokens: u['prompt_tokens'], total_tokens: u['total_tokens'], prompt_tokens_details: { cached_tokens: reply.usage?.cached ?? 0 } };
}

/** The SSE events of one streamed reply as llama-server sends them, ending with [DONE]. */
export function llamaStreamEvents(reply: FakeReply, ids: Ids, promptText: string, includeUsage: boolean): string[] {
  const out: string[] = [chunk(ids, [choice({ role: 'assistant', content: null })])];
  for (const r of chunksOf(reply.reasoning)) out.push(chunk(ids, [choice({ reasoning_content: r })]));
  for (const t of chunksOf(reply.text)) out.push(chunk(ids, [choice({ content: t })]));
  (reply.toolCalls ?? []).forEach((tc, index) => {
    const [first = '', ...rest] = splitInPieces(tc.arguments, 3);
    const id = tc.id ?? llamaCallId(`${ids.id}/${index}`);
    out.push(chunk(ids, [choice({ tool_calls: [{ index, id, type: 'function', function: { name: tc.name, arguments: first } }] })]));
    for (const piece of rest) out.push(chunk(ids, [choice({ tool_calls: [{ index, function: { arguments: piece } }] })]));
  });
  const usage = llamaUsage(reply, promptText);
  out.push(chunk(ids, [choice({}, finishOf(reply))], includeUsage ? {} : { timings: timings(usage) }));
  if (includeUsage) out.push(chunk(ids, [], { usage, timings: timings(usage) }));
  out.push('data: [DONE]\n\n');
  return out;
}

/** The non-streaming `chat.completion` body: content "" beside tool calls, each call {type, function, id}. */
export function llamaJsonBody(reply: FakeReply, ids: Ids, promptText: string): Record<string, unknown> {
  const calls = (reply.toolCalls ?? []).map((tc, i) => ({ type: 'function', function: { name: tc.name, arguments: tc.arguments }, id: tc.id ?? llamaCallId(`${ids.id}/${i}`) }));
  const message: Record<string, unknown> = { role: 'assistant', content: chunksOf(reply.text).join('') };
  if (reply.reasoning !== undefined) message['reasoning_content'] = chunksOf(reply.reasoning).join('');
  if (calls.length > 0) message['tool_calls'] = calls;
  const usage = llamaUsage(reply, promptText);
  return { choices: [{ finish_reason: finishOf(reply), index: 0, message }], created: ids.created, model: ids.model, system_fingerprint: LLAMA_BUILD, object: 'chat.completion', usage, id: ids.id, timings: timings(usage) };
}

/** tools/server format_error_response: the type each status is sent with. */
const ERROR_TYPES: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 500: 'server_error', 501: 'not_supported_error', 503: 'unavailable_error' };

/** An error answer's body (the 401 of `--api-key`: "Invalid API Key", type authentication_error). */
export function llamaErrorBody(status: number, message: string): Record<string, unknown> {
  return { error: { code: status, message, type: ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error') } };
}

/** The response headers: a stream's, or an error answer's (which closes the connection). */
export function llamaHeaders(kind: 'stream' | 'json' | 'error'): Record<string, string> {
  if (kind === 'stream') return { server: 'llama.cpp', 'x-accel-buffering': 'no', 'content-type': 'text/event-stream', 'keep-alive': 'timeout=5, max=100' };
  return { server: 'llama.cpp', 'content-type': 'application/json; charset=utf-8', ...(kind === 'error' ? { connection: 'close' } : { 'keep-alive': 'timeout=5, max=100' }) };
}
