// Rollout persistence policy: what is written and how it is capped (kept apart from the writer).
import type { RolloutRecord } from '../api.js';

export interface RolloutPolicy {
  /** Flush when this many records are buffered. */
  batchRecords: number;
  /** ...or this many ms after the first unflushed record. */
  batchMs: number;
  /** Above this many buffered records, appendRollout waits (bounded command queue). */
  maxQueuedRecords: number;
  /** ...or above this many buffered bytes: records range from 200 B to whole tool outputs, and the queue is
   *  what one group commit writes and fsyncs, so its size bounds drain() latency under saturation. */
  maxQueuedBytes: number;
  /** A file stops growing at this size: later records are dropped and counted, one marker is written. */
  maxFileBytes: number;
  /** Resume refuses to load a file larger than this (a huge rollout must not crash-loop resume). */
  maxReplayBytes: number;
}

export const DEFAULT_POLICY: RolloutPolicy = {
  batchRecords: 32,
  batchMs: 20,
  maxQueuedRecords: 4096,
  maxQueuedBytes: 256 * 1024,
  maxFileBytes: 256 * 1024 * 1024,
  maxReplayBytes: 64 * 1024 * 1024,
};

/** Every record type is persisted; the exhaustive switch makes a new type a compile error until decided. */
export function shouldPersist(record: RolloutRecord): boolean {
  switch (record.type) {
    case 'session_meta':
    case 'turn_context':
    case 'response_item':
    case 'compacted':
    case 'agent_checkpoint':
      return true;
    case 'event_msg':
      // stream chunks never reach the ledger; only facts (stop reasons, errors, markers)
      return record.payload.kind !== 'ai_chunk';
  }
}

/** The one marker line written when a file hits maxFileBytes. */
export function capMarker(dropped: number, now: number): string {
  const rec: RolloutRecord = { type: 'event_msg', ts: now, payload: { kind: 'rollout_capped', detail: `dropped ${dropped} record(s) past the size cap` } };
  return `${JSON.stringify(rec)}\n`;
}
