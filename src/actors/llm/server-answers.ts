// What real model servers say when a request fails, read from their error bodies (by type and code first, then by
// text): a request that does not fit the window (with the window and the prompt size when the server tells them), a
// request whose shape the server could not read, a KV cache that filled mid-answer. Sources, per server:
// - llama.cpp `tools/server`: 400 `{"error":{"code":400,"message":"request (6248 tokens) exceeds the available
//   context size (6144 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":6248,
//   "n_ctx":6144}}` (server_task_result_error::to_json; older builds: "input (N tokens) is larger than the max
//   context size (M tokens)"), also sent inside a 200 stream (unslothai/unsloth#9390); 500 "Context size has been
//   exceeded." when the KV cache its parallel slots share fills mid-answer (ggml-org/llama.cpp#23652,
//   lemonade-sdk/lemonade#3276); 500 "Failed to parse tool call arguments as JSON: …" when a history tool call's
//   arguments are not JSON (issue 23).
// - vLLM: 400 `{"error":{"message":"This model's maximum context length is N tokens. However, your request has P
//   input tokens…","type":"BadRequestError","code":400}}` (engine/protocol.py ErrorInfo); before mid 2025 the same
//   fields at the top level, `{"object":"error","message":…}` (vllm-project/vllm#20409, #4667).
// - Ollama: over /v1 a prompt longer than num_ctx is truncated silently by default (ollama/ollama#4967, #3839: the
//   only sign is a low prompt_tokens); its errors, wrapped as `{"error":{"message":…,"type":"invalid_request_error"}}`
//   (openai/openai.go NewError), say "the prompt is longer than the context length currently available to the model"
//   (shift off), "the input length exceeds the context length" (embeddings) or carry llama.cpp's body as a JSON
//   string (truncate off); "invalid tool call arguments" for history arguments that are not JSON.
// - LM Studio: 400 with the error as a string: "The number of tokens to keep from the initial prompt is greater than
//   the context length (n_keep: 13055>= n_ctx: 4096)…" (0.4.x, Gitlawb/openclaude#353), "Trying to keep the first
//   15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens"
//   (0.3.x, lmstudio-ai/lmstudio-bug-tracker#237, #546).
// - OpenAI `code: context_length_exceeded`; Anthropic "prompt is too long: 210000 tokens > 200000 maximum".

/** Enough of a message to find what it says; a server may echo a whole request after it. */
const READ_CHARS = 8192;

const OVERFLOW_TYPES = new Set(['exceed_context_size_error', 'context_length_exceeded']);

const OVERFLOW_TEXT = new RegExp(
  [
    'context_length_exceeded',
    'exceed_context_size_error',
    'maximum context length',
    'exceeds the available context size',
    'exceeds (?:the )?context size',
    'is larger than the max context size',
    'longer than the context length',
    'input length exceeds the context length',
    'tokens to keep from the initial prompt is greater than the context length',
    'when context the overflows',
    'prompt is too long',
    'context window',
    'too many (?:input )?tokens',
    'request too large',
  ].join('|'),
  'i',
);

const WINDOW_TEXT = [
  /available context size \((\d+) tokens?\)/i,
  /max(?:imum)? context (?:size|length|window)(?: is| of)? \(?(\d+)/i,
  /\bn_ctx:? ?(\d+)/i,
  /context length of only (\d+)/i,
  /> ?(\d+) maximum/i,
];

const PROMPT_TEXT = [
  /request \((\d+) tokens?\)/i,
  /input \((\d+) tokens?\) is larger/i,
  /your request has (\d+) input tokens/i,
  /you requested (\d+) tokens/i,
  /resulted in (\d+) tokens/i,
  /\bn_keep:? ?(\d+)/i,
  /keep the first (\d+) tokens/i,
  /too long: (\d+) tokens/i,
];

/** What an overflow answer told about the sizes (either may be unknown). */
export interface OverflowFacts {
  /** The server's context window in tokens (llama.cpp `n_ctx`, vLLM/OpenAI "maximum context length is N"). */
  contextWindow?: number;
  /** The request's size in tokens as the server counted it. */
  promptTokens?: number;
}

function rec(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function positive(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

function firstMatch(text: string, patterns: readonly RegExp[]): number | undefined {
  for (const p of patterns) {
    const n = positive(p.exec(text)?.[1]);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** A string that is itself a JSON error body (Ollama passes llama.cpp's on as its message). */
function nested(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v = rec(JSON.parse(t));
    return rec(v?.['error']) ?? v;
  } catch {
    return undefined;
  }
}

/**
 * The server's error object, however it came: an SDK error's `error` (OpenAI: the body's `error`, which may be a
 * string; Anthropic: the whole body), a mid-stream payload, or a raw body (vLLM's top-level fields). Unwraps a JSON
 * string message one level.
 */
export function errorRecord(source: unknown): Record<string, unknown> | undefined {
  if (typeof source === 'string') return nested(source) ?? { message: source };
  const top = rec(source);
  if (top === undefined) return undefined;
  const inner = top['error'];
  if (typeof inner === 'string') return nested(inner) ?? { ...top, message: inner };
  const r = rec(inner) ?? top;
  const msg = r['message'];
  const deeper = typeof msg === 'string' ? nested(msg) : undefined;
  return deeper !== undefined ? { ...r, ...deeper } : r;
}

/** The record's message, or '' (a server's message, clipped to what is worth reading). */
export function messageOf(r: Record<string, unknown> | undefined): string {
  const m = r?.['message'];
  return typeof m === 'string' ? m.slice(0, READ_CHARS) : '';
}

/** The record's type or code (llama.cpp and vLLM put a number in `code`; OpenAI a string). */
function kindsOf(r: Record<string, unknown> | undefined): string[] {
  return [r?.['type'], r?.['code']].filter((v): v is string => typeof v === 'string');
}

/**
 * The request does not fit the model's window: the facts the answer gave, or null when it is not an overflow.
 * `status` is the HTTP status (undefined inside a 200 stream); text alone counts only on a 400, 413 or in a stream,
 * because a 5xx "context" message is the server's own trouble (the KV-cache error below).
 */
export function readOverflow(r: Record<string, unknown> | undefined, text: string, status: number | undefined): OverflowFacts | null {
  const said = `${messageOf(r)} ${text.slice(0, READ_CHARS)}`;
  const byKind = kindsOf(r).some((k) => OVERFLOW_TYPES.has(k));
  const byText = (status === undefined || status === 400 || status === 413) && OVERFLOW_TEXT.test(said);
  if (!byKind && !byText && status !== 413) return null;
  const contextWindow = positive(r?.['n_ctx']) ?? firstMatch(said, WINDOW_TEXT);
  const promptTokens = positive(r?.['n_prompt_tokens']) ?? firstMatch(said, PROMPT_TEXT);
  return { ...(contextWindow !== undefined ? { contextWindow } : {}), ...(promptTokens !== undefined ? { promptTokens } : {}) };
}

/** llama-server's KV cache, shared by its parallel slots, filled while answering (retrying later can succeed). */
export function isKvCacheFull(text: string): boolean {
  return /context size has been exceeded/i.test(text.slice(0, READ_CHARS));
}

const REQUEST_FAULTS: readonly [RegExp, string][] = [
  [/failed to parse tool call arguments as json|invalid tool call arguments/i, 'the arguments of a tool call in the conversation history are not valid JSON'],
  [/roles must alternate/i, 'the order of the messages (the chat template wants user and assistant turns to alternate)'],
];

/** What part of our request the server says it could not read (an answer that no retry changes), or null. */
export function requestFault(text: string): string | null {
  const t = text.slice(0, READ_CHARS);
  for (const [pattern, what] of REQUEST_FAULTS) if (pattern.test(t)) return what;
  return null;
}
