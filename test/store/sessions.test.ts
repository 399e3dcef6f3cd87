// The session ledger: turns folded into summaries, interrupted turns, refusal of failed ones, task rollouts.
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { sessionsDir } from '../../src/store/sessions.js';
import { taskMemoryPath } from '../../src/store/task-memory.js';
import { meta, storeIn, tempRoot } from './helpers.js';

const U = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0 };
let t: ReturnType<typeof tempRoot> | undefined;
afterEach(() => t?.cleanup());

describe('session ledger', () => {
  it('folds turns: started, turns, last prompt, stop reason, tokens; newest session first', async () => {
    t = tempRoot();
    const s = storeIn(t.dir);
    await s.recordSessionTurn('p', 'S1', { kind: 'turn_start', ts: 1, taskId: 'T1', prompt: 'first', workspace: '/w' });
    await s.recordSessionTurn('p', 'S1', { kind: 'turn_end', ts: 2, taskId: 'T1', stopReason: 'plain_text', usage: U, rolloutPath: '/r1' });
    await s.recordSessionTurn('p', 'S1', { kind: 'turn_start', ts: 3, taskId: 'T2', prompt: 'second', workspace: '/w' });
    await s.recordSessionTurn('p', 'S1', { kind: 'turn_end', ts: 4, taskId: 'T2', stopReason: 'plain_text', usage: U, rolloutPath: '/r2' });
    await s.recordSessionTurn('p', 'S0', { kind: 'turn_start', ts: 0, taskId: 'T0', prompt: 'old', workspace: '/w' });
    const s1 = await s.readSession('p', 'S1');
    expect(s1).toMatchObject({ sessionId: 'S1', startedAt: 1, turns: 2, lastPrompt: 'second', lastTaskId: 'T2', taskIds: ['T1', 'T2'], turnStarts: [1, 3], stopReason: 'plain_text', lastRolloutPath: '/r2', tokens: { input: 20, output: 10 }, resumable: { ok: true } });
    expect((await s.listSessions('p')).map((x) => x.sessionId)).toEqual(['S1', 'S0']);
    expect(await s.listSessions('other')).toEqual([]);
    expect(await s.readSession('p', 'nope')).toBeNull();
  });

  it('a turn that never ended is interrupted (stop unknown) and resumable; a torn line is skipped', async () => {
    t = tempRoot();
    const s = storeIn(t.dir);
    await s.recordSessionTurn('p', 'S', { kind: 'turn_start', ts: 1, taskId: 'T1', prompt: 'go', workspace: '/w' });
    appendFileSync(join(sessionsDir(t.dir, 'p'), 'S.jsonl'), '{"kind":"turn_end","ts":2,"task');
    const sum = await s.readSession('p', 'S');
    expect(sum?.stopReason).toBeNull();
    expect(sum?.resumable).toEqual({ ok: true });
  });

  it('a failed last turn leaves the session resumable (a failure never ends a session)', async () => {
    t = tempRoot();
    const s = storeIn(t.dir);
    await s.recordSessionTurn('p', 'S', { kind: 'turn_start', ts: 1, taskId: 'T1', prompt: 'go', workspace: '/w' });
    await s.recordSessionTurn('p', 'S', { kind: 'turn_end', ts: 2, taskId: 'T1', stopReason: 'llm_error', usage: U, rolloutPath: '/r' });
    expect(await s.readSession('p', 'S')).toMatchObject({ stopReason: 'llm_error', resumable: { ok: true } });
    // a turn whose Director never opened a rollout: the session's conversation is still the last one recorded
    await s.recordSessionTurn('p', 'S', { kind: 'turn_start', ts: 3, taskId: 'T2', prompt: 'again', workspace: '/w' });
    await s.recordSessionTurn('p', 'S', { kind: 'turn_end', ts: 4, taskId: 'T2', stopReason: 'panic', usage: U, rolloutPath: '' });
    expect(await s.readSession('p', 'S')).toMatchObject({ stopReason: 'panic', lastTaskId: 'T2', lastRolloutPath: '/r', resumable: { ok: true } });
  });

  it('taskRollouts finds the Director and delegation rollouts of one task, buffered heads included', async () => {
    t = tempRoot();
    const s = storeIn(t.dir);
    await s.openRollout(meta({ sessionId: 'a', taskId: 'T1', projectId: 'p' }));
    await s.openRollout(meta({ sessionId: 'b', taskId: 'T1', projectId: 'p', agent: 'coding', delegationId: 'call-1' }), { agentSuffix: true });
    await s.openRollout(meta({ sessionId: 'c', taskId: 'T2', projectId: 'p' }));
    const heads = await s.taskRollouts('p', 'T1');
    expect(heads.map((h) => h.meta.delegationId).sort()).toEqual(['call-1', null].sort());
    await s.shutdown();
  });

  it('taskRollouts lists a task\'s rollouts oldest first even within one second (file names tie there on a random id)', async () => {
    t = tempRoot();
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 0, 100));
    const s = storeIn(t.dir, { clock });
    // a delegation and its restart, opened 300 ms apart in the same second: the restart's id sorts first by name
    await s.openRollout(meta({ sessionId: 'zz-first', taskId: 'T1', projectId: 'p', agent: 'coding', delegationId: 'call-1' }), { agentSuffix: true });
    clock.advance(300);
    await s.openRollout(meta({ sessionId: 'aa-restart', taskId: 'T1', projectId: 'p', agent: 'coding', delegationId: 'call-1' }), { agentSuffix: true });
    const heads = await s.taskRollouts('p', 'T1');
    expect(heads.map((h) => h.meta.sessionId)).toEqual(['zz-first', 'aa-restart']);
    await s.shutdown();
  });

  it('deleteTaskMemory drops the pending snapshot and the file', async () => {
    t = tempRoot();
    const s = storeIn(t.dir);
    await s.saveTaskMemory('T', { messages: [{ role: 'user', content: 'x' }], max_size: 0 });
    await s.flushTaskMemory();
    expect(existsSync(taskMemoryPath(t.dir, 'T'))).toBe(true);
    expect(await s.deleteTaskMemory('T')).toBe(true);
    expect(existsSync(taskMemoryPath(t.dir, 'T'))).toBe(false);
    expect(await s.loadTaskMemory('T')).toBeNull();
    expect(await s.deleteTaskMemory('T')).toBe(false);
  });
});
