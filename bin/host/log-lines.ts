// Which events become log lines, in which file (app/llm/llm-error/tool/delegate), at which level. Pure: tested directly.
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { LogLine } from '../../src/store/api.js';

/** The loop's <thought> warning (source `THOUGHT_LOG_SOURCE`): never a progress line; `-v` mirrors it once per run. */
export function isThoughtWarning(env: Envelope): boolean {
  return env.payload.type === 'log' && env.payload.source === 'thought';
}

/** Event types the log sink subscribes to (llm_retry / breaker_state included by name: the llm layer publishes them). */
export const LOGGED_EVENT_TYPES: readonly string[] = [
  'log', 'task_end', 'conversation_error',
  'llm_call_start', 'llm_call_end', 'llm_retry', 'breaker_state', 'model_info', 'model_routed', 'provider_fallback',
  'tool_call_start', 'tool_call_result',
  'delegation_start', 'delegation_end', 'delegation_worktree',
];

const MAX_FIELD = 2000;

/** The payload without `type`, long strings cut (a tool's display can be a whole file). */
function dataOf(payload: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) {
    if (k === 'type') continue;
    out[k] = typeof v === 'string' && v.length > MAX_FIELD ? `${v.slice(0, MAX_FIELD)}… (${v.length} chars)` : v;
  }
  return out;
}

function kindOf(type: string): LogLine['kind'] | null {
  if (type === 'log' || type === 'task_end' || type === 'conversation_error') return 'app';
  if (type.startsWith('llm_') || type.startsWith('model_') || type === 'provider_fallback' || type === 'breaker_state') return 'llm';
  if (type.startsWith('tool_call_')) return 'tool';
  if (type.startsWith('delegation_')) return 'delegate';
  return null;
}

/** A failed model call: every retried attempt, and every call that gave up (a cancel is not a failure). */
function isLlmFailure(p: Record<string, unknown>): boolean {
  if (p.type === 'llm_retry') return true;
  return p.type === 'llm_call_end' && typeof p.error === 'string' && p.code !== 'CANCELLED' && p.error !== 'cancelled';
}

function levelOf(p: Record<string, unknown>): LogLine['level'] {
  if (p.type === 'log') return (p.level as LogLine['level'] | undefined) ?? 'info';
  if (p.type === 'conversation_error') return 'error';
  if (p.type === 'llm_call_end' && typeof p.error === 'string') return isLlmFailure(p) ? 'error' : 'info';
  if (p.type === 'llm_retry' || p.type === 'provider_fallback' || typeof p.error === 'string' || p.ok === false) return 'warn';
  return 'info';
}

function messageOf(p: Record<string, unknown>): string {
  if (typeof p.message === 'string') return p.message;
  if (p.type === 'llm_retry') {
    const n = Number(p.attempt) - 1;
    return `${String(p.provider)}: attempt ${n}/${String(p.maxAttempts)} failed, retry in ${String(p.waitMs)} ms: ${String(p.reason)}`;
  }
  if (p.type === 'model_info') {
    // the one line that says which window and threshold the agent's run uses (mirrored under --verbose)
    const window = typeof p.contextWindow === 'number' ? `context window ${p.contextWindow}` : 'context window unknown';
    const threshold = typeof p.compressionThreshold === 'number' ? `, compression threshold ${p.compressionThreshold}` : '';
    return `${String(p.model)} at ${String(p.provider)}: ${window} (${String(p.windowSource ?? 'not known')})${threshold}`;
  }
  if (typeof p.error === 'string') return p.error;
  if (typeof p.error === 'object' && p.error !== null) return String((p.error as { message?: unknown }).message ?? 'error');
  const who = typeof p.agent === 'string' ? `${p.agent}: ` : '';
  // a failed tool call says what failed (the -v line was "director: tool_call_result list_dir")
  if (p.type === 'tool_call_result' && p.ok === false) return `${who}${String(p.name)} failed: ${String(p.display).split('\n')[0]?.slice(0, 200) ?? ''}`;
  const what = [p.name, p.child, p.model, p.provider, p.status, p.stopReason].filter((x) => typeof x === 'string').join(' ');
  return `${who}${String(p.type)}${what ? ` ${what}` : ''}`;
}

/** Which attempt failed (1-based): a retry names the next one, a call's end counts its retries. */
function failedAttempt(p: Record<string, unknown>): number {
  return p.type === 'llm_retry' ? Number(p.attempt) - 1 : Number(p.retries ?? 0) + 1;
}

/** The log line of one envelope, or null when the event is not logged. */
export function logLineFor(env: Envelope): LogLine | null {
  const p = env.payload as unknown as Record<string, unknown>;
  const kind = kindOf(env.payload.type);
  if (kind === null) return null;
  return {
    kind,
    level: levelOf(p),
    event: env.payload.type,
    msg: messageOf(p),
    ts: env.ts,
    ...(env.taskId !== '' ? { taskId: env.taskId } : {}),
    ...(typeof p.agent === 'string' ? { agent: p.agent } : {}),
    data: {
      ...dataOf(p),
      ...(isLlmFailure(p) ? { failedAttempt: failedAttempt(p) } : {}),
      ...(env.delegationId !== null ? { delegationId: env.delegationId } : {}),
      actor: env.source,
    },
  };
}

/** Every line of one envelope: its line, and for a failed model call the same line in `llm-error` too (the llm file
 *  keeps each call whole, start to end; the failure file has every failure of the day in one place). */
export function logLinesFor(env: Envelope): LogLine[] {
  const line = logLineFor(env);
  if (line === null) return [];
  return isLlmFailure(env.payload as unknown as Record<string, unknown>) ? [line, { ...line, kind: 'llm-error' }] : [line];
}

/** The --verbose stderr line of a log line: its agent named once (most messages start with it already). */
export function mirrorText(line: LogLine, withLevel = true): string {
  const agent = line.agent !== undefined && !line.msg.startsWith(`${line.agent}: `) ? `${line.agent}: ` : '';
  return `yagent: ${withLevel ? `${line.level}: ` : ''}${agent}${line.msg}\n`;
}
