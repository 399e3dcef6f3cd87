import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { STOP_REASONS, type ChatMessage } from '../../src/runtime/protocol/index.js';
import type { RolloutRecord } from '../../src/store/api.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { digestMessages } from '../../src/store/rollout/digest.js';
import { parseRecords } from '../../src/store/rollout/lines.js';
import { describeStop, stopState } from '../../src/store/rollout/stop.js';
import { meta, storeIn, tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());
let seq = 0;
const item = (m: ChatMessage): RolloutRecord => ({ type: 'response_item', ts: ++seq, payload: m });
const BIG = 'x'.repeat(20_000);
const convo: ChatMessage[] = [
  { role: 'system', content: 'you are repo' },
  { role: 'user', content: 'look' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }], reasoning: [{ text: 'think', signature: 'sig' }] },
  { role: 'tool', toolCallId: 'c1', name: 'read_file', content: BIG },
  { role: 'assistant', content: 'done' },
];

async function written(session: string, records: RolloutRecord[]) {
  const s = storeIn(t.dir);
  const h = await s.openRollout(meta({ sessionId: session }));
  await s.appendRollout(h.path, records);
  await s.drain(h.path);
  return { s, path: h.path };
}

describe('replay reader (memory rules 1, 4)', () => {
  it('rebuilds system, reasoning and full tool outputs exactly as written', async () => {
    const { s, path } = await written('exact', convo.map(item));
    const r = await s.readReplay(path);
    expect(r.ok && r.messages).toEqual(convo);
    expect(r.ok && r.meta?.agent).toBe('director');
    await s.shutdown();
  });

  it('compacted replaces the prefix it summarised', async () => {
    const compacted: RolloutRecord = { type: 'compacted', ts: ++seq, payload: { replacesCount: 4, messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'summary' }] } };
    const { s, path } = await written('compact', [...convo.map(item), compacted, item({ role: 'user', content: 'next' })]);
    const r = await s.readReplay(path);
    expect(r.ok && r.messages.map((m) => m.content)).toEqual(['sys', 'summary', 'done', 'next']);
    await s.shutdown();
  });

  it('the summarising reader is a different reader: no system, no reasoning, tool output cut', async () => {
    const { s, path } = await written('summary', convo.map(item));
    const sum = await s.readSummary(path);
    expect(sum.messages.some((m) => m.role === 'system')).toBe(false);
    expect(sum.messages.some((m) => m.role === 'assistant' && m.reasoning !== undefined)).toBe(false);
    const tool = sum.messages.find((m) => m.role === 'tool');
    expect(tool && tool.content.length).toBeLessThan(BIG.length);
    const replay = await s.readReplay(path);
    expect(replay.ok && replay.messages.length).toBe(convo.length);
    await s.shutdown();
  });

  it('WriteCheckpointDigestMatchesReplay: the checkpoint fingerprint is the replay digest of the rebuilt list', async () => {
    const compacted: RolloutRecord = { type: 'compacted', ts: ++seq, payload: { replacesCount: 3, messages: [{ role: 'user', content: 'sum' }] } };
    const { s, path } = await written('cp', [...convo.map(item), compacted]);
    const cp = await s.writeCheckpoint(path, { step: 3, stopReason: 'paused', model: 'm', delegationId: 'call-1' });
    const r = await s.readReplay(path);
    expect(r.ok && r.fingerprint).toBe(cp.fingerprint);
    expect(r.ok && r.lastCheckpoint?.fingerprint).toBe(cp.fingerprint);
    // computed over the rebuilt list, not over what was appended (compaction replaced a prefix)
    expect(cp.fingerprint).not.toBe(digestMessages(convo));
    await s.shutdown();
  });

  it('ReplayDigestDetectsTruncation: dropping a message or a reasoning block changes the digest', () => {
    const full = digestMessages(convo);
    expect(digestMessages(convo.slice(0, -1))).not.toBe(full);
    const noReasoning = convo.map((m) => (m.role === 'assistant' ? { role: 'assistant' as const, content: m.content, ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}) } : m));
    expect(digestMessages(noReasoning)).not.toBe(full);
    expect(digestMessages(structuredClone(convo))).toBe(full);
  });

  it('CheckpointDigestSeesQueuedRecords: records still buffered are drained before fingerprinting', async () => {
    const clock = new ManualClock();
    const s = storeIn(t.dir, { clock });
    const h = await s.openRollout(meta({ sessionId: 'queued' }));
    await s.appendRollout(h.path, convo.map(item)); // 6 records < 32 and the clock never moves: still buffered
    const cp = await s.writeCheckpoint(h.path, { step: 1, stopReason: 'paused', model: 'm', delegationId: null });
    expect(cp.messageCount).toBe(convo.length);
    expect(cp.fingerprint).toBe(digestMessages(convo));
    await s.shutdown();
  });

  it('NoPerStepCheckpointWritten: appending steps never writes an agent_checkpoint by itself', async () => {
    const { s, path } = await written('steps', [...convo.map(item), { type: 'turn_context', ts: 1, payload: { model: 'm', provider: 'p', cwd: '/', step: 2 } }]);
    await s.writeCheckpoint(path, { step: 2, stopReason: 'agent_exit', model: 'm', delegationId: null });
    const recs = parseRecords(readFileSync(path, 'utf8')).records;
    expect(recs.filter((r) => r.type === 'agent_checkpoint')).toHaveLength(1);
    await s.shutdown();
  });

  it('a torn last line is skipped and reported, never fatal', async () => {
    const { s, path } = await written('torn', convo.map(item));
    await s.shutdown();
    appendFileSync(path, '{"type":"response_item","ts":9,"payload":{"role":"us');
    const s2 = storeIn(t.dir);
    const r = await s2.readReplay(path);
    expect(r.ok && r.issues.tornTail).toBe(true);
    expect(r.ok && r.messages).toEqual(convo);
    await s2.shutdown();
  });

  it('a rollout over the replay size cap is refused as data instead of loaded', async () => {
    const s = storeIn(t.dir, { policy: { maxReplayBytes: 1000 } });
    const h = await s.openRollout(meta({ sessionId: 'huge' }));
    await s.appendRollout(h.path, convo.map(item));
    const r = await s.readReplay(h.path);
    expect(r).toMatchObject({ ok: false, reason: 'too_large', limit: 1000 });
    await s.shutdown();
  });

  it('refuses paths outside the rollout root', async () => {
    const s = storeIn(t.dir);
    await expect(s.appendRollout('/etc/passwd', [])).rejects.toMatchObject({ code: 'BAD_PATH' });
    await s.shutdown();
  });
});

describe('stop facts (memory rule 6)', () => {
  it('ReadRolloutStopFacts_NoTerminalRecordIsNotFoundNotError: shown as unknown', async () => {
    const { s, path } = await written('nostop', convo.map(item));
    const f = await s.readStopFacts(path);
    expect(f).toEqual({ found: false });
    expect(describeStop(f)).toBe('unknown');
    await s.shutdown();
  });

  it('reads the last terminal record from the tail', async () => {
    const { s, path } = await written('stop', [
      ...convo.map(item),
      { type: 'event_msg', ts: 50, payload: { kind: 'turn_aborted', stopReason: 'llm_error' } },
      { type: 'event_msg', ts: 51, payload: { kind: 'task_end', stopReason: 'cancelled' } },
    ]);
    const f = await s.readStopFacts(path);
    expect(f).toMatchObject({ found: true, stopReason: 'cancelled', ts: 51 });
    await s.shutdown();
    writeFileSync(path, readFileSync(path, 'utf8') + '{"torn');
    const s2 = storeIn(t.dir);
    expect(await s2.readStopFacts(path)).toMatchObject({ found: true, stopReason: 'cancelled' });
    await s2.shutdown();
  });

  it('StopFactsState_EveryKindIsClaimed: every stop reason maps to a state; only paused/cancelled resume', () => {
    const states = STOP_REASONS.map((r) => [r, stopState(r)] as const);
    expect(states.every(([, s]) => ['resumable', 'finished', 'failed'].includes(s))).toBe(true);
    expect(states.filter(([, s]) => s === 'resumable').map(([r]) => r)).toEqual(['paused', 'cancelled']);
  });
});
