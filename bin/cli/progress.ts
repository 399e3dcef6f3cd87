// Human progress lines (stderr) from envelopes: one short line per event worth a glance; chunks are skipped.
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { isThoughtWarning } from '../host/log-lines.js';

const clip = (s: string, n = 100): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

const seconds = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

/** Lines shown dim on a terminal: background noise the user may want to know about, not progress. */
export const DIM_EVENT_TYPES: ReadonlySet<string> = new Set(['llm_retry', 'breaker_state', 'llm_waiting']);

/** A call still waiting: one line at 5, 10, 20, 40 s … of silence (every notice would be a line each 5 s). */
function waitingLine(who: string, p: Extract<Envelope['payload'], { type: 'llm_waiting' }>): string | null {
  const marks = p.waitedMs / 5000;
  if (p.over || !Number.isInteger(marks) || marks < 1 || (marks & (marks - 1)) !== 0) return null;
  const what = p.phase === 'slot' ? 'for a free request slot ([llm] max_in_flight_requests)' : 'for the server to answer';
  const of = p.attempt > 1 ? ` (attempt ${p.attempt}/${p.maxAttempts})` : '';
  return `${who} · ${p.provider}: waiting ${seconds(p.waitedMs)} ${what}${of}`;
}

export function describeEnvelope(env: Envelope): string | null {
  const p = env.payload;
  const who = 'agent' in p ? p.agent : env.source;
  switch (p.type) {
    case 'delegation_start':
      return `${who} → ${p.child}: ${clip(p.task)}`;
    case 'delegation_end':
      return `${who} ← ${p.child}: ${p.status}${p.noteRef ? ` (note ${p.noteRef})` : ''}`;
    case 'delegation_worktree':
      if (p.merged === undefined) return `${who} → ${p.child}: in its own worktree (${p.branch})`;
      return p.merged === 'merged'
        ? `${who} ← ${p.child}: worktree merged${p.files && p.files.length > 0 ? ` (${p.files.length} file${p.files.length === 1 ? '' : 's'})` : ''}`
        : `${who} ← ${p.child}: MERGE CONFLICT in ${(p.files ?? []).join(', ')}: kept on ${p.branch}`;
    case 'delegation_restarted':
      return `${who} ↻ ${p.child}: restarted after a crash (${p.attempt}/${p.maxRestarts}): ${clip(p.reason, 80)}`;
    case 'tool_call_start':
      return `${who} · ${p.name} ${clip(p.brief, 80)}`;
    case 'tool_call_result':
      return p.ok ? null : `${who} · ${p.name} failed: ${clip(p.display, 80)}`;
    case 'user_help_needed':
      // never cut: the reason is what the user decides on
      return `${who} needs ${p.kind === 'authorization' ? 'approval' : 'an answer'} [${p.requestId}]: ${p.question.replace(/\s+/g, ' ').trim()}`;
    case 'user_help_response':
      return `request ${p.requestId} ${p.approved ? 'approved' : 'denied'}`;
    case 'user_help_withdrawn':
      return `request ${p.requestId} withdrawn: ${clip(p.reason, 80)}`;
    case 'message_queued':
      return `message queued for the Director's next step: ${clip(p.text, 80)}`;
    case 'user_message':
      return `${who} took a queued message: ${clip(p.text, 80)}`;
    case 'model_switched':
      return p.error !== undefined ? `${who}: model switch to ${p.provider ?? 'routing'} refused: ${p.error}` : `${who}: model switched to ${p.provider === null ? 'routing' : p.provider + (p.model ? ` ${p.model}` : '')}`;
    case 'note_written':
      return `${who} wrote note ${p.ref} (${p.status})`;
    case 'llm_retry': {
      const step = p.step !== undefined ? `step ${p.step}, ` : '';
      return `${who} · ${p.provider}: ${step}attempt ${p.attempt - 1}/${p.maxAttempts} failed, ${p.stepRetry === true ? 'step retried' : 'retry'} in ${seconds(p.waitMs)}: ${clip(p.reason, 100)}`;
    }
    case 'llm_waiting':
      return waitingLine(who, p);
    case 'breaker_state':
      return `${who} · ${p.provider}: circuit breaker ${p.state}`;
    case 'provider_fallback':
      return `${who}: provider ${p.from} → ${p.to} (${clip(p.reason, 60)})`;
    case 'conversation_error':
      return `${who} error: ${clip(p.error.message)}`;
    case 'task_paused':
      return 'task paused';
    case 'task_resumed':
      return 'task resumed';
    case 'actor_paused':
      return `${p.actor.replace(/^delegation:[^:]*:/, '')} ${p.paused ? 'paused' : 'continued'}`;
    case 'task_end':
      return `task ended: ${p.stopReason}`;
    case 'drop_report':
      return `dropped events in ${p.scope}: ${Object.entries(p.dropped).map(([k, v]) => `${k}=${v}`).join(' ')}`;
    case 'mcp_server_state':
      return p.state === 'failed' || p.state === 'restarting' ? `MCP server ${p.server} ${p.state}${p.error ? `: ${clip(p.error, 160)}` : ''}` : null;
    case 'log':
      return (p.level === 'warn' || p.level === 'error') && !isThoughtWarning(env) ? `${p.level}: ${clip(p.message, 200)}` : null;
    case 'ai_stream_start':
    case 'ai_chunk':
    case 'ai_stream_end':
    case 'ai_response':
    case 'thinking':
    case 'llm_call_start':
    case 'llm_call_end':
    case 'model_info':
    case 'model_routed':
    case 'context_loaded':
    case 'context_compressed':
    case 'context_emergency_compressed':
    case 'context_ultimate_compressed':
    case 'sub_agent_activity':
    case 'conversation_result':
      return null;
  }
}
