// Summarising reader for pickers and listings: drops system, reasoning, and cuts tool outputs.
// Never used for replay (that is replay.ts): the two readers must stay separate (memory rule 4).
import type { ChatMessage } from '../../runtime/protocol/index.js';
import type { RolloutSummary } from '../api.js';
import { rebuild } from './replay.js';
import { fileSize, parseRecords, readTail } from './lines.js';
import { readStopFacts } from './stop.js';

const TOOL_OUTPUT_CHARS = 400;

function summarise(m: ChatMessage): ChatMessage | null {
  switch (m.role) {
    case 'system':
      return null;
    case 'user':
      return m;
    case 'assistant':
      return { role: 'assistant', content: m.content, ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}) };
    case 'tool':
      return m.content.length > TOOL_OUTPUT_CHARS ? { ...m, content: `${m.content.slice(0, TOOL_OUTPUT_CHARS)}…` } : m;
  }
}

/** Reads at most the last `maxBytes` of the file: a summary of a huge rollout is its tail. */
export async function readRolloutSummary(path: string, maxBytes: number): Promise<RolloutSummary> {
  if ((await fileSize(path)) === null) return { path, meta: null, messages: [], stop: { found: false }, issues: { tornTail: false, corruptLines: 0 } };
  const { text, fromStart } = await readTail(path, maxBytes > 0 ? maxBytes : Number.MAX_SAFE_INTEGER);
  const { records, issues } = parseRecords(text, fromStart);
  const { meta, messages } = rebuild(records);
  const out = messages.map(summarise).filter((m): m is ChatMessage => m !== null);
  return { path, meta, messages: out, stop: await readStopFacts(path), issues };
}
