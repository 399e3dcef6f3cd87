// The fake provider's script vocabulary: replies keyed by agent identity, faults, recorded requests.
export type WireFormat = 'openai' | 'anthropic';

export interface FakeToolCall {
  id?: string;
  name: string;
  /** Raw argument text, streamed in pieces; may be invalid JSON on purpose. */
  arguments: string;
}

export type FakeFault =
  /** An HTTP error before any byte of the body; retryAfter (seconds) becomes a Retry-After header. */
  | { kind: 'status'; status: number; retryAfter?: number; message?: string; code?: string }
  /** Destroys the socket after `afterEvents` SSE events were written. */
  | { kind: 'reset'; afterEvents: number }
  /** Writes `afterEvents` events, then never writes again (until the client goes away). */
  | { kind: 'stall'; afterEvents: number }
  /** Writes a data line that is not JSON. */
  | { kind: 'malformed' }
  /** The request does not fit: the server flavour's own overflow status and body (flavours.ts). */
  | { kind: 'overflow'; promptTokens: number; window: number }
  /** `afterEvents` events, then the flavour's mid-stream KV-cache-full error frame inside the 200, then the end. */
  | { kind: 'kv_full'; afterEvents: number }
  /** Accepts the request and never sends a byte, not even the status line (until the client goes away). */
  | { kind: 'silent' }
  /** Like silent, after asking the provider's `onCrashWorker` hook to end the asking agent's worker abruptly (a
   *  scripted CLI run wires it to the runtime); when that ended no worker: a 500 saying so. */
  | { kind: 'crash_worker' };

export interface FakeReply {
  /** Text content; an array is streamed one element per delta. */
  text?: string | string[];
  /** Reasoning (openai `reasoning_content`, anthropic thinking block). */
  reasoning?: string | string[];
  /** Anthropic thinking signature (defaults to a fixed one when reasoning is present). */
  signature?: string;
  toolCalls?: FakeToolCall[];
  finishReason?: 'stop' | 'tool_calls' | 'length';
  usage?: { input?: number; output?: number; cached?: number; reasoning?: number };
  fault?: FakeFault;
  /** Delay before each SSE event in ms (overrides the server default; 0 = zero-latency). */
  chunkDelayMs?: number;
}

export interface RecordedRequest {
  format: WireFormat;
  path: string;
  agent: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The request body's bytes as they arrived (byte-level checks: the prompt-cache prefix between requests). */
  raw: string;
  stream: boolean;
  /** Set when the client closed the connection before the reply finished. */
  cancelled: boolean;
  /** The step index this request consumed within its agent's script. */
  step: number;
  /** Which connection it came on (1, 2, … in the order the server accepted them). */
  connection: number;
}

export type FakeStep = FakeReply | ((req: RecordedRequest) => FakeReply | Promise<FakeReply>);

export function chunksOf(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return typeof v === 'string' ? (v === '' ? [] : [v]) : v;
}

/** Splits a string into n roughly equal pieces (tool arguments arrive split across chunks). */
export function splitInPieces(s: string, n: number): string[] {
  if (s.length === 0) return [''];
  const size = Math.max(1, Math.ceil(s.length / n));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
