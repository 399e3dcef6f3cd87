// How each real OpenAI-compatible server answers what the fake provider can be asked to do: its overflow body, its
// mid-stream KV-cache error, its answer to tool-call arguments in the history that are not JSON, and whether it
// closes the connection after a streamed answer. Each shape is the server's own, with where it was seen.
import type { WireFormat } from './script.js';

export type ServerFlavour = 'openai' | 'llama.cpp' | 'vllm' | 'vllm-legacy' | 'ollama' | 'lmstudio';

export interface ErrorAnswer {
  status: number;
  body: unknown;
}

/** The connection is closed after every streamed answer although the answer said `Keep-Alive: timeout=5, max=100`:
 *  llama-server (issue 23: Debian's build b11669; 5 of 10 back-to-back streamed requests on a reused socket failed). */
export function closesAfterStream(f: ServerFlavour): boolean {
  return f === 'llama.cpp';
}

/** The request does not fit the server's window. */
export function overflowAnswer(f: ServerFlavour, format: WireFormat, promptTokens: number, window: number): ErrorAnswer {
  if (format === 'anthropic') return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${promptTokens} tokens > ${window} maximum` } } };
  switch (f) {
    case 'openai':
      return { status: 400, body: { error: { message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } };
    case 'llama.cpp':
      // tools/server: server_task_result_error::to_json adds n_prompt_tokens and n_ctx for ERROR_TYPE_EXCEED_CONTEXT_SIZE
      return { status: 400, body: { error: { code: 400, message: `request (${promptTokens} tokens) exceeds the available context size (${window} tokens), try increasing it`, type: 'exceed_context_size_error', n_prompt_tokens: promptTokens, n_ctx: window } } };
    case 'vllm':
      // vllm/entrypoints/openai/engine/protocol.py ErrorResponse{error: ErrorInfo{message, type, param, code}}
      return { status: 400, body: { error: { message: `This model's maximum context length is ${window} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages.`, type: 'BadRequestError', param: null, code: 400 } } };
    case 'vllm-legacy':
      // vLLM before the ErrorInfo envelope (vllm-project/vllm#20409, mid 2025): the fields at the top level
      return { status: 400, body: { object: 'error', message: `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens} tokens (${promptTokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`, type: 'BadRequestError', param: null, code: 400 } };
    case 'ollama':
      // /v1 truncates silently by default (ollama/ollama#4967, #3839); this is its error when shifting is off,
      // wrapped by its OpenAI middleware (openai/openai.go NewError: 400 → invalid_request_error)
      return { status: 400, body: { error: { message: 'the prompt is longer than the context length currently available to the model', type: 'invalid_request_error', param: null, code: null } } };
    case 'lmstudio':
      // the error is a string (lmstudio-ai/lmstudio-bug-tracker#237, Gitlawb/openclaude#353 on 0.4.x)
      return { status: 400, body: { error: `The number of tokens to keep from the initial prompt is greater than the context length (n_keep: ${promptTokens}>= n_ctx: ${window}). Try to load the model with a larger context length, or provide a shorter input.` } };
  }
}

/** The SSE frame llama-server sends inside a 200 when its KV cache (shared by the parallel slots) fills mid-answer
 *  (issue 23; ggml-org/llama.cpp#23652, lemonade-sdk/lemonade#3276). */
export function kvFullFrame(): string {
  return `data: ${JSON.stringify({ error: { code: 500, message: 'Context size has been exceeded.', type: 'server_error' } })}\n\n`;
}

/** What a server answers when an assistant tool call in the history has arguments that are not JSON, or null when it
 *  takes them as they are. llama-server parses them to render its chat template (issue 23); Ollama's middleware
 *  unmarshals them (openai/openai.go FromCompletionToolCall). */
export function unparsableHistoryAnswer(f: ServerFlavour, bad: string): ErrorAnswer | null {
  switch (f) {
    case 'llama.cpp':
      return { status: 500, body: { error: { code: 500, message: `Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column ${bad.length + 1}: syntax error while parsing value - unexpected end of input`, type: 'server_error' } } };
    case 'ollama':
      return { status: 400, body: { error: { message: 'invalid tool call arguments', type: 'invalid_request_error', param: null, code: null } } };
    default:
      return null;
  }
}

/** The first assistant tool call in an OpenAI request body whose arguments do not parse as JSON. */
export function unparsableHistoryArguments(body: Record<string, unknown>): string | null {
  const messages = Array.isArray(body['messages']) ? (body['messages'] as unknown[]) : [];
  for (const m of messages) {
    const calls = (m as { tool_calls?: unknown }).tool_calls;
    if (!Array.isArray(calls)) continue;
    for (const c of calls as { function?: { arguments?: unknown } }[]) {
      const args = c.function?.arguments;
      if (typeof args !== 'string') continue;
      try {
        JSON.parse(args);
      } catch {
        return args;
      }
    }
  }
  return null;
}
