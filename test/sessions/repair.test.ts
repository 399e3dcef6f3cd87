// Pure rules of resume: tool-call pairing (last wins), the replay assessment (B or C), the C report.
import { describe, expect, it } from 'vitest';
import { assessReplay } from '../../src/actors/agents/replay-assessment.js';
import { degradedReport } from '../../src/actors/agents/ledger-report.js';
import { NOT_RECORDED, repairToolPairs } from '../../src/actors/agents/tool-pairs.js';
import type { ChatMessage } from '../../src/runtime/protocol/index.js';
import type { ReplayResult } from '../../src/store/api.js';
import { digestMessages } from '../../src/store/rollout/digest.js';

const asst = (...ids: string[]): ChatMessage => ({ role: 'assistant', content: 'a', toolCalls: ids.map((id) => ({ id, name: id === 'w' ? 'create_file' : 'read_file', arguments: JSON.stringify({ path: `${id}.txt` }) })) });
const tool = (id: string, content: string): ChatMessage => ({ role: 'tool', toolCallId: id, name: 'read_file', content });

describe('repairToolPairs', () => {
  it('last result wins, a missing one is marked not recorded, an orphan is dropped, order follows the calls', () => {
    const out = repairToolPairs([{ role: 'user', content: 'u' }, asst('a', 'b'), tool('b', 'b1'), tool('a', 'old'), tool('zz', 'orphan'), tool('a', 'new'), asst('c')]);
    expect(out.map((m) => (m.role === 'tool' ? `${m.toolCallId}:${m.content === NOT_RECORDED ? 'none' : m.content}` : m.role))).toEqual([
      'user', 'assistant', 'a:new', 'b:b1', 'assistant', 'c:none',
    ]);
  });
});

describe('assessReplay', () => {
  const msgs: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, asst('w'), tool('w', 'created')];
  const ok = (over: Partial<Extract<ReplayResult, { ok: true }>> = {}): ReplayResult => ({
    ok: true, meta: { sessionId: 's', taskId: 't', agent: 'coding', projectId: 'p', cwd: '/', delegationId: 'd', parentSessionId: null, boardId: 'b' },
    messages: msgs, fingerprint: digestMessages(msgs), lastCheckpoint: null, thinklink: [], records: 5, issues: { tornTail: false, corruptLines: 0 }, ...over,
  });
  it('no checkpoint (killed) and a torn tail still replay; a matching checkpoint replays', () => {
    expect(assessReplay(ok({ issues: { tornTail: true, corruptLines: 0 } }), 0).kind).toBe('replay');
    const cp = { step: 2, stopReason: 'cancelled' as const, fingerprint: digestMessages(msgs), model: 'm', delegationId: 'd' };
    expect(assessReplay(ok({ lastCheckpoint: cp }), 0).kind).toBe('replay');
  });
  it('a fingerprint mismatch, a torn ledger, too many messages or a missing file degrade (C)', () => {
    const cp = { step: 2, stopReason: 'cancelled' as const, fingerprint: '0000', model: 'm', delegationId: 'd' };
    expect(assessReplay(ok({ lastCheckpoint: cp }), 0)).toMatchObject({ kind: 'degraded', reason: expect.stringMatching(/fingerprint/) });
    expect(assessReplay(ok({ issues: { tornTail: false, corruptLines: 2 } }), 0)).toMatchObject({ kind: 'degraded', reason: expect.stringMatching(/torn/) });
    expect(assessReplay(ok(), 3)).toMatchObject({ kind: 'degraded', reason: expect.stringMatching(/max_replay_messages/) });
    expect(assessReplay({ ok: false, reason: 'not_found', bytes: 0, limit: 0 }, 0).kind).toBe('degraded');
  });
  it('the C report names the tools run, the files changed and the last thoughts', () => {
    const r = degradedReport('coding', 'why', msgs);
    expect(r).toContain('create_file ×1');
    expect(r).toContain('Files changed: w.txt');
    expect(r).toContain('Last thoughts: a');
  });
});
