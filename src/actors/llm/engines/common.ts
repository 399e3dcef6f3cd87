// Helpers both engines share: call-option precedence, tool ordering, identity header, tool-call assembly.
import type { FinishReason, ToolCall, ToolDef } from '../../../runtime/protocol/index.js';
import { httpFetch } from '../transport/http-fetch.js';
import { LlmError } from '../errors.js';

/** Header the engines send with the agent identity (the fake provider keys its scripts by it). */
export const AGENT_HEADER = 'x-yagent-agent';

/** Call options > provider config > omitted; 0 counts as "not set" on both levels. */
export function pick(call: number | undefined, provider: number | undefined): number | undefined {
  if (call !== undefined && call !== 0) return call;
  if (provider !== undefined && provider !== 0) return provider;
  return undefined;
}

/** Tools go to the provider sorted by name so the prompt prefix (and the provider's cache) is stable. */
export function sortedTools(tools: readonly ToolDef[]): ToolDef[] {
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Accumulates streamed tool calls by index (ids may be missing on OpenAI-compatible servers). */
export class ToolCallAssembler {
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  start(index: number, id: string | undefined, name: string | undefined): void {
    const cur = this.calls.get(index);
    if (cur === undefined) this.calls.set(index, { id: id ?? '', name: name ?? '', args: '' });
    else {
      if (id !== undefined && id !== '' && cur.id === '') cur.id = id;
      if (name !== undefined && name !== '' && cur.name === '') cur.name = name;
    }
  }
  append(index: number, args: string): void {
    if (!this.calls.has(index)) this.start(index, undefined, undefined);
    const cur = this.calls.get(index);
    if (cur !== undefined) cur.args += args;
  }
  result(): { id: string; name: string; arguments: string }[] {
    return [...this.calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([i, c]) => ({ id: c.id !== '' ? c.id : `call_${i}`, name: c.name, arguments: c.args }));
  }
}

/** Builds a value on first use and keeps it; a failed build is not kept, so the next use retries
 *  (the engines load their SDK this way: a worker that never calls a format never imports it). */
export function lazyRetrying<T>(build: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= build().catch((e: unknown) => {
      value = undefined;
      throw e;
    }));
}

/** Header naming a call's signal to our fetch (callSignalFetch); taken off before the request is sent. */
export const CALL_HEADER = 'x-yagent-call';
const callSignals = new Map<string, AbortSignal>();
let nextCall = 0;

/**
 * A call's signal reaches the transport through our fetch, not through the SDK: given a signal, the Anthropic SDK
 * hangs a cleanup on it and a FinalizationRegistry entry on every answer's body (~0.1 ms of CPU a streamed call on the
 * `llm` bench, the SDK with a signal against the same SDK without: issue 29). The SDK gets a header naming the call
 * instead; its own controller never fires (no retries, a 24 h timeout). `release` forgets a call the fetch never took.
 */
export function callSignalHeader(signal: AbortSignal): { header: string; release(): void } {
  const id = String(++nextCall);
  callSignals.set(id, signal);
  return { header: id, release: () => callSignals.delete(id) };
}

type Fetch = typeof fetch;
type HeaderBag = { get(name: string): string | null; delete(name: string): void };

/** The SDK's fetch: a request that names a call (CALL_HEADER) is sent with that call's signal and without the header. */
export function callSignalFetch(inner: Fetch): Fetch {
  return ((input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) => {
    const headers = init?.headers as HeaderBag | Record<string, string> | undefined;
    let id: string | null | undefined;
    if (headers !== undefined && typeof (headers as HeaderBag).get === 'function') {
      id = (headers as HeaderBag).get(CALL_HEADER);
      if (id !== null) (headers as HeaderBag).delete(CALL_HEADER);
    } else if (headers !== undefined && !Array.isArray(headers)) {
      id = (headers as Record<string, string>)[CALL_HEADER];
      if (id !== undefined) delete (headers as Record<string, string>)[CALL_HEADER];
    }
    const signal = id !== undefined && id !== null ? callSignals.get(id) : undefined;
    if (signal === undefined) return inner(input, init);
    callSignals.delete(id as string);
    return inner(input, withSignal(init, signal));
  }) as Fetch;
}

/** `{ ...init, signal }` without reading `init.signal`: the SDKs' own is a getter that builds their AbortSignal on its
 *  first read (~4 µs in Node 20; scripts/sdk-fast-request.mjs), and the call's signal replaces it unread. */
function withSignal(init: Parameters<Fetch>[1], signal: AbortSignal): RequestInit {
  const out: Record<string, unknown> = { signal };
  if (init === undefined) return out;
  for (const key of Object.keys(init)) if (key !== 'signal') out[key] = (init as Record<string, unknown>)[key];
  return out;
}

/** Client options both SDKs share: retries and timeouts belong to the reliability stack, not the SDK; requests go
 *  through our node:http transport (transport/http-fetch.ts) unless a test passes its own fetch, under callSignalFetch. */
export function sdkClientOptions(
  provider: { apiKey: string; apiBaseUrl: string },
  fetchImpl: typeof fetch | undefined,
): { apiKey: string; baseURL: string; maxRetries: 0; timeout: number; fetch: typeof fetch } {
  return {
    // a keyless loopback server (config allows it): the SDKs refuse an empty key, any word does
    apiKey: provider.apiKey === '' ? 'no-key' : provider.apiKey,
    baseURL: provider.apiBaseUrl,
    maxRetries: 0,
    timeout: 24 * 3_600_000,
    fetch: callSignalFetch(fetchImpl ?? httpFetch),
  };
}

/** Whether tool-call arguments are one complete JSON object (what every server expects back in the history). */
export function isJsonObject(args: string): boolean {
  if (args.trim() === '' || !args.trimStart().startsWith('{')) return false;
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** An answer that stopped at its output limit ("length") inside a call's arguments: that call is marked cut, so it
 *  is never run (a call whose arguments closed before the limit stands). */
export function markCutCalls(calls: ToolCall[], finish: FinishReason): ToolCall[] {
  if (finish !== 'length') return calls;
  return calls.map((c) => (isJsonObject(c.arguments) ? c : { ...c, truncated: true as const }));
}

/** What a history tool call's arguments go back as: never text that is not a JSON object (llama-server answers 500
 *  "Failed to parse tool call arguments as JSON", Ollama 400, for the whole conversation): a cut or broken call goes
 *  back as `{}`, its result says what happened. Checked once per call object. */
const wireArgs = new WeakMap<ToolCall, string>();
export function wireArguments(c: ToolCall): string {
  let out = wireArgs.get(c);
  if (out === undefined) {
    out = c.truncated !== true && isJsonObject(c.arguments) ? c.arguments : '{}';
    wireArgs.set(c, out);
  }
  return out;
}

/** Bounds one streamed answer (text, reasoning and tool arguments, in characters): past `[llm] max_answer_chars` the
 *  accumulator throws, which stops the read and closes the request, so a runaway answer costs at most the cap (a 50 MB
 *  answer once peaked at 3 GB, issue 22). Not retried: the same request would run away again. */
export class AnswerBudget {
  private used = 0;
  constructor(private readonly cap: number) {}
  take(chars: number): void {
    this.used += chars;
    if (this.used > this.cap) {
      throw new LlmError('ANSWER_TOO_LARGE', `the answer passed ${this.cap} characters ([llm] max_answer_chars): the read stopped there and the answer was not used`, false, undefined, undefined, { detail: { answerCapChars: this.cap } });
    }
  }
}

/** No cap (an engine built without the config, as in tests). */
export const UNCAPPED: Pick<AnswerBudget, 'take'> = { take: () => undefined };
