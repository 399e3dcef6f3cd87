// Stop facts read from the tail of a rollout; `found=false` is "unknown", never filtered out (memory rule 6).
import type { StopReason } from '../../runtime/protocol/index.js';
import type { StopFacts } from '../api.js';
import { fileSize, parseRecords, readTail } from './lines.js';

const TAIL_WINDOW = 64 * 1024;

export async function readStopFacts(path: string, window = TAIL_WINDOW): Promise<StopFacts> {
  if ((await fileSize(path)) === null) return { found: false };
  const { text, fromStart } = await readTail(path, window);
  const { records } = parseRecords(text, fromStart);
  let step: number | null = null;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.type === 'agent_checkpoint') return { found: true, stopReason: r.payload.stopReason, ts: r.ts, step: r.payload.step, source: 'agent_checkpoint' };
    if (r.type === 'turn_context' && step === null && r.payload.step !== undefined) step = r.payload.step;
    if (r.type === 'event_msg' && r.payload.stopReason) return { found: true, stopReason: r.payload.stopReason, ts: r.ts, step, source: 'event_msg' };
  }
  return { found: false };
}

/** Display form: a missing terminal record is "unknown", not hidden. */
export function describeStop(f: StopFacts): string {
  return f.found ? f.stopReason : 'unknown';
}

export type StopState = 'resumable' | 'finished' | 'failed';

/** Every stop kind is claimed by exactly one state; a new kind fails to compile until placed. */
export function stopState(reason: StopReason): StopState {
  switch (reason) {
    case 'paused':
    case 'cancelled':
      return 'resumable';
    case 'plain_text':
    case 'agent_exit':
      return 'finished';
    case 'idle_timeout':
    case 'total_timeout':
    case 'max_steps':
    case 'llm_error':
    case 'circuit_breaker_open':
    case 'panic':
    case 'unaccounted':
      return 'failed';
  }
}
