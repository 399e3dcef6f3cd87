// stream-json v1: every line validates against the schema and parent links rebuild the delegation tree.
import { describe, expect, it } from 'vitest';
import type { Envelope, Event } from '../../src/runtime/protocol/index.js';
import { DelegationTree, envelopeLine, StreamLineSchema } from '../../bin/cli/stream-json.js';

let seq = 0;
const env = (delegationId: string | null, payload: Event): Envelope => ({
  seq: ++seq,
  taskId: 't1',
  delegationId,
  source: delegationId ?? 'director',
  type: payload.type,
  lane: 'normal',
  ts: 1,
  payload,
});

describe('stream-json', () => {
  it('parent links: a nested delegation points at the delegation that started it', () => {
    const tree = new DelegationTree();
    const lines = [
      env(null, { type: 'delegation_start', agent: 'director', callId: 'call_1', child: 'repo', task: 'explore' }),
      env('delegation:call_1:repo', { type: 'delegation_start', agent: 'repo', callId: 'call_9', child: 'devops', task: 'run' }),
      env('delegation:call_9:devops', { type: 'tool_call_start', agent: 'devops', callId: 'x', name: 'run_bash', brief: 'ls' }),
      env('delegation:call_1:repo', { type: 'ai_chunk', agent: 'repo', text: 'hi' }),
      env(null, { type: 'ai_chunk', agent: 'director', text: 'hi' }),
    ].map((e) => envelopeLine(e, tree));
    for (const l of lines) expect(StreamLineSchema.safeParse(JSON.parse(JSON.stringify(l))).success).toBe(true);
    expect(lines.map((l) => [l.delegation_id, l.parent])).toEqual([
      [null, null],
      ['delegation:call_1:repo', null],
      ['delegation:call_9:devops', 'delegation:call_1:repo'],
      ['delegation:call_1:repo', null],
      [null, null],
    ]);
  });

  it('every line carries v, seq, task_id and the payload without its type', () => {
    const line = envelopeLine(env('d1', { type: 'note_written', agent: 'repo', ref: 'r1', status: 'ok', mentions: [] }), new DelegationTree());
    expect(line).toMatchObject({ v: 2, task_id: 't1', type: 'note_written', data: { agent: 'repo', ref: 'r1' } });
    expect(line.seq).toBeGreaterThan(0);
    expect('type' in line.data).toBe(false);
  });
});
