// The supervisor's event log: replay from a seq with no gap, one order for every client, pending approvals.
import { describe, expect, it } from 'vitest';
import type { Envelope, Event } from '../../src/runtime/protocol/index.js';
import { ENDED_LOGS_KEPT, EventLog } from '../../bin/server/event-log.js';

const seqs = new Map<string, number>();
const env = (taskId: string, payload: Event, delegationId: string | null = null): Envelope => {
  const seq = (seqs.get(taskId) ?? 0) + 1;
  seqs.set(taskId, seq);
  return { seq, taskId, delegationId, source: 'x', type: payload.type, lane: 'normal', ts: 0, payload };
};
const chunk = (text: string): Event => ({ type: 'ai_chunk', agent: 'director', text });

describe('event log', () => {
  it('replay from a seq then follow misses nothing and repeats nothing', () => {
    const log = new EventLog();
    for (let i = 0; i < 5; i++) log.append(env('a', chunk(`${i}`)));
    const seen: number[] = [];
    const off = log.follow('a', 2, (e) => seen.push(e.seq));
    log.append(env('a', chunk('5')));
    log.append(env('b', chunk('other task')));
    off();
    log.append(env('a', chunk('after unsubscribe')));
    expect(seen).toEqual([3, 4, 5, 6]);
  });

  it('several followers see the same events in the same order', () => {
    const log = new EventLog();
    const a: string[] = [];
    const b: string[] = [];
    log.follow(undefined, 0, (e) => a.push(`${e.taskId}#${e.seq}`));
    log.follow(undefined, 0, (e) => b.push(`${e.taskId}#${e.seq}`));
    for (let i = 0; i < 50; i++) log.append(env(i % 3 === 0 ? 'x' : 'y', chunk(String(i))));
    expect(a).toHaveLength(50);
    expect(b).toEqual(a);
  });

  it('a pending approval from a nested delegation is listed until its response or the task end', () => {
    const log = new EventLog();
    const ask = (id: string): Event => ({ type: 'user_help_needed', agent: 'coding', requestId: id, kind: 'authorization', question: 'write?', tool: 'create_file' });
    log.append(env('t', ask('r1'), 'delegation:c1:repo/delegation:c2:coding'));
    log.append(env('t', ask('r2'), 'delegation:c3:coding'));
    expect(log.approvals().map((a) => a.request.requestId)).toEqual(['r1', 'r2']);
    expect(log.approval('r1')?.delegationId).toBe('delegation:c1:repo/delegation:c2:coding');
    log.append(env('t', { type: 'user_help_response', requestId: 'r1', approved: true, scope: 'once' }));
    expect(log.approvals().map((a) => a.request.requestId)).toEqual(['r2']);
    log.append(env('t', { type: 'task_end', stopReason: 'cancelled' }));
    expect(log.approvals()).toEqual([]);
    expect(log.ended('t')).toBe(true);
  });

  it('a withdrawn request (its asker gave up or is gone) leaves the pending approvals while the task runs on', () => {
    const log = new EventLog();
    const ask = (id: string): Event => ({ type: 'user_help_needed', agent: 'coding', requestId: id, kind: 'question', question: 'which?' });
    log.append(env('w', ask('q1'), 'c1'));
    log.append(env('w', ask('q2'), 'c2'));
    log.append(env('w', { type: 'user_help_withdrawn', requestId: 'q1', reason: 'delegation:c1:coding is gone' }, 'c1'));
    expect(log.approvals().map((a) => a.request.requestId)).toEqual(['q2']);
    expect(log.ended('w')).toBe(false);
  });

  it('the per-task log is capped', () => {
    const log = new EventLog(10);
    for (let i = 0; i < 25; i++) log.append(env('cap', chunk(String(i))));
    const kept = log.replay('cap', 0);
    expect(kept).toHaveLength(10);
    expect(kept[0]?.seq).toBe(16);
  });
});

describe('event log of a long-running supervisor', () => {
  it('keeps the events of the last ENDED_LOGS_KEPT ended tasks (and every running one); an older task still reads as ended', () => {
    const log = new EventLog();
    log.append(env('live', chunk('still running')));
    const ids = Array.from({ length: ENDED_LOGS_KEPT + 3 }, (_, i) => `done-${i}`);
    for (const id of ids) {
      log.append(env(id, chunk(`from ${id}`)));
      log.append(env(id, { type: 'task_end', stopReason: 'plain_text' }));
    }
    const kept = ids.filter((id) => log.replay(id, 0).length > 0);
    expect(kept).toEqual(ids.slice(-ENDED_LOGS_KEPT));
    expect(log.replay('live', 0)).toHaveLength(1);
    expect(ids.every((id) => log.ended(id))).toBe(true);
    expect(log.ended('live')).toBe(false);
  });
});
