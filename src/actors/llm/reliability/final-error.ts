// The error a user sees when a model call gives up: three lines (what / where + last status or errno / fix).
import { LlmError } from '../errors.js';
import { isLoopbackUrl } from '../../../runtime/config/index.js';

export interface CallTarget {
  provider: string;
  model: string;
  /** api_base_url as configured. */
  url: string;
  /** api_key_env of the provider, when the key comes from a variable. */
  keyEnv?: string | undefined;
}

export type GiveUpReason = 'not retryable' | 'retries exhausted' | 'call budget spent' | 'loopback refused';

/** A server on this machine that refused the connection is not running: waiting will not start it. */
export function isLoopbackRefused(err: LlmError, url: string): boolean {
  return err.errno === 'ECONNREFUSED' && isLoopbackUrl(url);
}

/** A window this small cannot hold an agent's first request with room to work; 8k is the README's small case. */
const TOO_SMALL_WINDOW = 4096;
const ADVISED_WINDOW = 8192;

/** What the user can do about it, by failure class. */
export function hintFor(err: LlmError, t: CallTarget): string {
  const key = t.keyEnv !== undefined && t.keyEnv !== '' ? `the variable ${t.keyEnv}` : `api_key in [global.llm.providers.${t.provider}]`;
  switch (err.code) {
    case 'AUTH':
      return `check the API key (${key}) or run \`yagent setup\``;
    case 'INVALID_URL':
      return `fix api_base_url in [global.llm.providers.${t.provider}] (an http(s) URL) or run \`yagent setup\``;
    case 'NOT_FOUND':
    case 'MODEL_NOT_FOUND':
      return `check that model "${t.model}" exists on the server and api_base_url points at the API root (often …/v1), or run \`yagent setup\``;
    case 'CONNECTION':
      if (err.errno === 'ENOTFOUND' || err.errno === 'EAI_AGAIN') return `check the host in api_base_url (it does not resolve) or run \`yagent setup\``;
      return `check the server is running and reachable at ${t.url}, or run \`yagent setup\``;
    case 'TIMEOUT':
      if (err.detail.idleMs !== undefined) return 'the server accepted the request and then sent nothing: check it is not stuck or overloaded; a slow local model that takes long before its first token needs a larger [llm] stream_idle_timeout (and call_budget)';
      return 'check the server is running and not overloaded; slow models need a larger [llm] timeout / call_budget';
    case 'RATE_LIMITED':
      return 'the provider is rate limiting: wait, lower [llm] max_in_flight_requests, or configure fallback_providers';
    case 'SERVER_ERROR':
      if (err.detail.kvCacheFull === true) {
        return 'the server ran out of context (KV cache) while answering requests at once: run fewer delegations at once ([agent] max_parallel_delegations = 1), or start llama-server with a larger -c, or with -np 1';
      }
      return 'the provider is failing: try again later or configure fallback_providers';
    case 'PROTOCOL':
      return `check api_format matches the server at ${t.url} ("openai" or "anthropic")`;
    case 'CIRCUIT_OPEN':
      return 'the provider failed repeatedly; it is tried again after [llm] circuit_breaker_cooldown';
    case 'CONTEXT_LENGTH': {
      const w = err.detail.contextWindow;
      const where = w !== undefined ? ` (the server's window is ${w} tokens${err.detail.promptTokens !== undefined ? `, the request ${err.detail.promptTokens}` : ''})` : '';
      // no compression helps there: an agent's system prompt and tool definitions alone take several thousand tokens
      // (seen with llama-server -c 2048: the Director's first request was 4121 tokens)
      if (w !== undefined && w <= TOO_SMALL_WINDOW) {
        const asked = err.detail.promptTokens !== undefined ? ` (this request: ${err.detail.promptTokens})` : '';
        return `a window of ${w} tokens is too small for yagent${asked}: an agent's instructions and tools alone take several thousand tokens; give the server a context of ${ADVISED_WINDOW} or more (llama.cpp -c, Ollama num_ctx, vLLM --max-model-len, LM Studio's context length)`;
      }
      return `the conversation no longer fits the model${where}: keep [enhanced_commander] enable_context_compression on, lower context_compression_threshold, or give the server a larger context (llama.cpp -c, Ollama num_ctx, vLLM --max-model-len, LM Studio's context length)`;
    }
    case 'ANSWER_TOO_LARGE':
      return `the model kept writing past ${err.detail.answerCapChars ?? 0} characters in one answer (a runaway answer): try again, lower the provider's max_tokens, or raise [llm] max_answer_chars`;
    case 'BAD_REQUEST':
      if (err.detail.requestFault !== undefined) return `yagent sent something the server could not read (${err.detail.requestFault}): please report it with this run's logs/llm-error-*.jsonl line`;
      return `the server rejected the request: check model, max_tokens and reasoning_effort of provider "${t.provider}"`;
    case 'CANCELLED':
      return `the server rejected the request: check model, max_tokens and reasoning_effort of provider "${t.provider}"`;
  }
}

function lastSeen(err: LlmError): string {
  if (err.status !== undefined) return `HTTP ${err.status}`;
  if (err.errno !== undefined) return `errno ${err.errno}`;
  return err.code === 'TIMEOUT' ? 'no answer (timeout)' : 'no HTTP status';
}

function firstLine(s: string): string {
  return (s.split('\n')[0] ?? s).trim();
}

/** The given-up error: same code and status, a message in three lines naming provider, URL and the last status or errno. */
export function finalError(err: LlmError, t: CallTarget, attempts: number, why: GiveUpReason, retryable: boolean): LlmError {
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  const message = [
    `model call failed: provider "${t.provider}" (model ${t.model}), ${tries}, ${why}: ${firstLine(err.message)}`,
    `  url: ${t.url} · last: ${lastSeen(err)}`,
    `  fix: ${hintFor(err, t)}`,
  ].join('\n');
  return new LlmError(err.code, message, retryable, err.retryAfterMs, err.status, { cause: err, errno: err.errno, detail: err.detail, attempts });
}
