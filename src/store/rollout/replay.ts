// Replay reader: rebuilds the message list exactly as before the pause (system, reasoning, full tool
// outputs; `compacted` replaces its prefix). Distinct from the summarising reader on purpose (memory rule 4).
import type { ChatMessage } from '../../runtime/protocol/index.js';
import { THINKLINK_KIND, type AgentCheckpoint, type ReplayResult, type RolloutRecord, type SessionMeta } from '../api.js';
import { digestMessages } from './digest.js';
import { fileSize, readRecords } from './lines.js';

export interface Rebuilt {
  meta: SessionMeta | null;
  messages: ChatMessage[];
  lastCheckpoint: AgentCheckpoint | null;
  /** Details of the `event_msg` records of kind `thinklink_entry`, in order: the run's plans, which a
   *  compressed list no longer holds (context compression restores its thinklink store from them on resume). */
  thinklink: string[];
}

export function rebuild(records: readonly RolloutRecord[]): Rebuilt {
  let meta: SessionMeta | null = null;
  let messages: ChatMessage[] = [];
  let lastCheckpoint: AgentCheckpoint | null = null;
  const thinklink: string[] = [];
  for (const r of records) {
    switch (r.type) {
      case 'session_meta':
        meta ??= r.payload;
        break;
      case 'response_item':
        messages.push(r.payload);
        break;
      case 'compacted':
        messages = [...r.payload.messages, ...messages.slice(r.payload.replacesCount)];
        break;
      case 'agent_checkpoint':
        lastCheckpoint = r.payload;
        break;
      case 'event_msg':
        if (r.payload.kind === THINKLINK_KIND) thinklink.push(r.payload.detail ?? '');
        break;
      case 'turn_context':
        break;
    }
  }
  return { meta, messages, lastCheckpoint, thinklink };
}

/** Reads the whole file (after the caller drained it) and rebuilds; refuses files above `maxBytes`. */
export async function readRolloutForReplay(path: string, maxBytes: number): Promise<ReplayResult> {
  const size = await fileSize(path);
  if (size === null) return { ok: false, reason: 'not_found', bytes: 0, limit: maxBytes };
  if (maxBytes > 0 && size > maxBytes) return { ok: false, reason: 'too_large', bytes: size, limit: maxBytes };
  const { records, issues } = await readRecords(path);
  const { meta, messages, lastCheckpoint, thinklink } = rebuild(records);
  return { ok: true, meta, messages, fingerprint: digestMessages(messages), lastCheckpoint, thinklink, records: records.length, issues };
}
