// Issue 29 (gap per step): what a step does between a tool result and the next request. The note index costs a store
// round trip only when the board may have changed (the store's own directory signatures, checked in the agent's
// thread); the task-memory snapshot leaves after the step's request, never before it.
import { describe, expect, it, vi } from 'vitest';
import { readdirSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { runLoop } from '../../src/actors/agents/loop.js';
import { flagsFor } from '../../src/actors/agents/profiles.js';
import { TaskMemorySaver, TASK_MEMORY_POST_MS } from '../../src/actors/agents/task-memory-saver.js';
import { ROLLOUT_BATCH_MS, ROLLOUT_HOLD_MS, StoreRecorder } from '../../src/actors/agents/recorder.js';
import type { Recorder, ToolRunner } from '../../src/actors/agents/loop-contract.js';
import type { ChatMessage, ToolCall } from '../../src/actors/agents/wire-types.js';
import { ManualClock, realClock } from '../../src/runtime/clock.js';
import { PauseController } from '../../src/runtime/pause.js';
import type { LlmEngine, LlmResponse } from '../../src/actors/llm/types.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { boardIndexReader } from '../../src/store/client.js';
import { StoreService } from '../../src/store/service.js';
import { exitCall, makeHarness, ScriptedModel, THOUGHT } from './harness.js';

const usage = { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (text: string, toolCalls: ToolCall[]): LlmResponse => ({ text, toolCalls, reasoning: [], usage, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', provider: 'p', model: 'm' });
const read = (i: number): ToolCall => ({ id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: 'hello.txt' }) });
const initial: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }];

describe('task memory', () => {
  it('the step\'s snapshot is posted once the request has gone through the engine\'s send path, not before it', async () => {
    const log: string[] = [];
    const inner: Recorder = { append: () => undefined, drain: () => Promise.resolve() };
    const store = { saveTaskMemory: (_id: string, m: { messages: unknown[] }) => (log.push(`save ${m.messages.length}`), Promise.resolve()) };
    const saver = new TaskMemorySaver(inner, 't', store, () => undefined);
    let n = 0;
    const engine: LlmEngine = {
      describe: () => ({ provider: 'p', model: 'm' }),
      call: async () => {
        log.push('call');
        // the SDK's send path: microtasks down to the socket write
        for (let i = 0; i < 20; i++) await Promise.resolve();
        log.push('on the wire');
        await new Promise((r) => setTimeout(r, 5)); // the model thinks
        return n++ === 0 ? reply('', [read(1)]) : reply('done', []);
      },
    };
    const tools: ToolRunner = {
      defs: () => [],
      runBatch: (cs) => Promise.resolve({ outcomes: cs.map((c) => ({ callId: c.id, name: c.name, content: 'hello', ok: true })), fatal: null }),
    };
    const out = await runLoop({ agent: 'director', cwd: '/', engine, tools, flags: { ...flagsFor('director', {}), requireThought: false, noActionRetryLimit: 0 }, recorder: saver, publish: () => undefined, pause: new PauseController(), signal: new AbortController().signal, clock: realClock }, initial);
    await saver.drain();
    expect(out.stopReason).toBe('plain_text');
    // the first step's snapshot after its request left; the second step is within TASK_MEMORY_POST_MS of it, so
    // the end of the run saves the last state
    expect(log).toEqual(['call', 'on the wire', 'save 2', 'call', 'on the wire', 'save 5']);
  });

  it('a run of quick steps posts one snapshot per TASK_MEMORY_POST_MS, not one per step, and none is lost', async () => {
    const clock = new ManualClock();
    const saved: number[] = [];
    const inner: Recorder = { append: () => undefined, drain: () => Promise.resolve() };
    const store = { saveTaskMemory: (_id: string, m: { messages: unknown[] }) => (saved.push(m.messages.length), Promise.resolve()) };
    const saver = new TaskMemorySaver(inner, 't', store, () => undefined, { clock });
    const step = async (i: number): Promise<void> => {
      saver.append([{ type: 'turn_context', ts: 0, payload: { provider: 'p', model: 'm', cwd: '/', step: i } }]);
      saver.append([{ type: 'response_item', ts: 0, payload: { role: 'user', content: `m${i}` } }]);
      saver.afterSend();
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    };
    for (let i = 1; i <= 20; i++) {
      await step(i);
      clock.advance(10); // 20 steps of 10 ms: all within one interval
    }
    expect(saved).toEqual([1]);
    // the interval passes: the steps since the first snapshot go in one trailing snapshot
    clock.advance(TASK_MEMORY_POST_MS);
    await new Promise((r) => setImmediate(r));
    expect(saved).toEqual([1, 20]);
    await step(21);
    await saver.drain();
    expect(saved).toEqual([1, 20, 21]);
  });

  it('a step\'s records are not deep-copied as they are recorded, only when the snapshot is taken after the request', async () => {
    const clock = new ManualClock();
    const saved: { messages: ChatMessage[] }[] = [];
    const inner: Recorder = { append: () => undefined, drain: () => Promise.resolve() };
    const store = { saveTaskMemory: (_id: string, m: { messages: ChatMessage[] }) => (saved.push(m), Promise.resolve()) };
    const saver = new TaskMemorySaver(inner, 't', store, () => undefined, { clock });
    const clone = vi.spyOn(globalThis, 'structuredClone');
    try {
      saver.append([{ type: 'turn_context', ts: 0, payload: { provider: 'p', model: 'm', cwd: '/', step: 1 } }]);
      saver.append([{ type: 'response_item', ts: 0, payload: { role: 'user', content: 'a' } }, { type: 'response_item', ts: 0, payload: { role: 'assistant', content: 'b' } }]);
      saver.append([{ type: 'compacted', ts: 0, payload: { messages: [{ role: 'user', content: 'summary' }], replacesCount: 1 } }]);
      saver.append([{ type: 'response_item', ts: 0, payload: { role: 'tool', toolCallId: 'c', name: 'read_file', content: 'c' } }]);
      // the loop's path from a tool result to the next request: no clone of the history's messages
      expect(clone).not.toHaveBeenCalled();
      saver.afterSend();
      await saver.drain();
    } finally {
      clone.mockRestore();
    }
    // the snapshot folds them exactly as the replay reader does (the compaction replaced the first message)
    expect(saved.at(-1)?.messages.map((m) => m.content)).toEqual(['summary', 'b', 'c']);
  });
});

describe('the rollout append', () => {
  it('quick steps share one append, sent only after a request has left once the oldest record waited ROLLOUT_BATCH_MS; drain sends what is held', async () => {
    const clock = new ManualClock();
    const log: string[] = [];
    let recorded = 0;
    const store = {
      appendRollout: (_p: string, rs: { type: string }[]) => (log.push(`append ${rs.length}`), Promise.resolve()),
      drain: () => (log.push('drain'), Promise.resolve()),
    };
    const inner = new StoreRecorder(Promise.resolve('/r.jsonl'), store, () => undefined, { clock });
    const recorder: Recorder = { append: (rs) => ((recorded += rs.length), inner.append(rs)), afterSend: () => inner.afterSend(), drain: () => inner.drain() };
    const STEP_MS = 4;
    let n = 0;
    const engine: LlmEngine = {
      describe: () => ({ provider: 'p', model: 'm' }),
      call: async () => {
        log.push('call');
        for (let i = 0; i < 20; i++) await Promise.resolve();
        log.push('on the wire');
        // the model's time: the step's records and the afterSend's turn run meanwhile
        await new Promise((r) => setImmediate(r));
        clock.advance(STEP_MS);
        return n++ < 7 ? reply('', [read(n)]) : reply('done', []);
      },
    };
    const tools: ToolRunner = {
      defs: () => [],
      runBatch: (cs) => Promise.resolve({ outcomes: cs.map((c) => ({ callId: c.id, name: c.name, content: 'hello', ok: true })), fatal: null }),
    };
    const out = await runLoop({ agent: 'repo', cwd: '/', engine, tools, flags: { ...flagsFor('repo', {}), requireThought: false, noActionRetryLimit: 0 }, recorder, publish: () => undefined, pause: new PauseController(), signal: new AbortController().signal, clock }, initial);
    await recorder.drain();
    expect(out.stopReason).toBe('plain_text');
    const appends = log.filter((l) => l.startsWith('append'));
    // 8 requests, 4 ms apart: the records wait for the first request at least ROLLOUT_BATCH_MS after the oldest of them
    expect(log.filter((l) => l === 'call')).toHaveLength(8);
    expect(appends.length).toBeLessThanOrEqual(Math.ceil((8 * STEP_MS) / ROLLOUT_BATCH_MS) + 1);
    expect(ROLLOUT_BATCH_MS).toBeLessThan(ROLLOUT_HOLD_MS);
    // nothing crosses before a request leaves, nor in the middle of a step: each append follows a request on the wire
    log.forEach((l, i) => {
      if (l.startsWith('append') && i < log.indexOf('drain') - 1) expect(log[i - 1]).toBe('on the wire');
    });
    // and nothing is lost: every record went, the last ones with the drain
    expect(appends.reduce((sum, l) => sum + Number(l.split(' ')[1]), 0)).toBe(recorded);
    expect(log.at(-1)).toBe('drain');
  });

  it('records appended while an append is in flight wait for a request or their hold, never go on its answer', async () => {
    const clock = new ManualClock();
    const sent: number[] = [];
    let answer = (): void => undefined;
    const store = {
      appendRollout: (_p: string, rs: unknown[]) => (sent.push(rs.length), new Promise<void>((r) => (answer = r))),
      drain: () => Promise.resolve(),
    };
    const recorder = new StoreRecorder(Promise.resolve('/r.jsonl'), store, () => undefined, { clock });
    const rec = { type: 'event_msg' as const, ts: 0, payload: { kind: 'stop' as const, stopReason: 'plain_text' as const } };
    recorder.append([rec]);
    clock.advance(ROLLOUT_HOLD_MS);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([1]);
    // the store answers in the middle of the next step: its records stay held
    recorder.append([rec, rec]);
    answer();
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([1]);
    clock.advance(ROLLOUT_BATCH_MS);
    recorder.afterSend();
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([1, 2]);
  });

  it('records with no request after them go on their own within ROLLOUT_HOLD_MS', async () => {
    const clock = new ManualClock();
    const sent: number[] = [];
    const store = { appendRollout: (_p: string, rs: unknown[]) => (sent.push(rs.length), Promise.resolve()), drain: () => Promise.resolve() };
    const recorder = new StoreRecorder(Promise.resolve('/r.jsonl'), store, () => undefined, { clock });
    recorder.append([{ type: 'event_msg', ts: 0, payload: { kind: 'stop', stopReason: 'plain_text' } }]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([]);
    clock.advance(ROLLOUT_HOLD_MS);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([1]);
  });
});

/** A note from "another process": a second store over the same data root (its writes never pass through ours). */
const sibling = (home: string) => new StoreService({ env: { YAGENT_HOME: home } });
const note = (boardId: string, conclusion: string) => ({ boardId, agent: 'devops', body: `${conclusion} in full`, handoff: { version: 2 as const, agent: 'devops', status: 'ok' as const, conclusion, facts: [], artifacts: [], mentions: [] } });

/** Every directory under the board gets an mtime an hour old: the store trusts a listing only past the clock's granularity. */
function age(dir: string): void {
  const old = new Date(Date.now() - 3_600_000);
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) age(join(dir, e.name));
  utimesSync(dir, old, old);
}

describe('the note index before each call', () => {
  it('is the store\'s answer while the board\'s directories keep their signatures; any note added or removed is asked again', async () => {
    const h = makeHarness();
    const home = join(h.root, 'home');
    let asked = 0;
    const store = { buildIndex: (...a: Parameters<StoreService['buildIndex']>) => (asked++, h.store.buildIndex(...a)) };
    const reader = boardIndexReader(store);
    const board = h.settings.boardId;
    const opts = { maxNotes: 12, maxLineChars: 200 };
    // no board yet: asked once, then its absence stands
    expect((await reader.buildIndex(board, opts)).text).toBe('');
    expect((await reader.buildIndex(board, opts)).text).toBe('');
    expect(asked).toBe(1);
    // another process writes a note: the next call asks, and the note is in it
    const other = sibling(home);
    await other.writeNote(note(board, 'first finding'));
    expect((await reader.buildIndex(board, opts)).text).toContain('first finding');
    expect(asked).toBe(2);
    // a listing as young as the directory clock's granularity is never reused
    await reader.buildIndex(board, opts);
    expect(asked).toBe(3);
    // once the directories are older than that, the answer stands while nothing changes
    age(join(home));
    await reader.buildIndex(board, opts);
    const settled = asked;
    expect((await reader.buildIndex(board, opts)).text).toContain('first finding');
    expect(asked).toBe(settled);
    // a second note moves its directory's mtime: asked again, both listed
    await other.writeNote(note(board, 'second finding'));
    const both = await reader.buildIndex(board, opts);
    expect(asked).toBe(settled + 1);
    expect(both.text).toContain('second finding');
    expect(both.text).toContain('first finding');
    // a note removed (GC, another process) is asked again too
    age(join(home));
    await reader.buildIndex(board, opts);
    const before = asked;
    const agentDirs = readdirSync(home, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.md') && e.parentPath.includes(board));
    rmSync(join(agentDirs[0]?.parentPath ?? '', agentDirs[0]?.name ?? ''));
    const after = await reader.buildIndex(board, opts);
    expect(asked).toBe(before + 1);
    expect(after.total).toBe(1);
    await other.shutdown();
    await h.store.shutdown();
  });

  it('a run whose board does not change asks the store for its index once, not at every step', async () => {
    const h = makeHarness();
    let asked = 0;
    const index = h.store.buildIndex.bind(h.store);
    h.store.buildIndex = (...a) => (asked++, index(...a));
    const readHello = { text: `${THOUGHT}\nread it`, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] };
    const model = new ScriptedModel({ repo: [readHello, readHello, readHello, readHello, exitCall('done')] });
    const out = await runAgent(h.env(model), { agent: 'repo', role: 'repo', brief: 'look', settings: h.settings, delegationId: null, parentSessionId: null });
    expect(out.stopReason).not.toBe('panic');
    expect(model.byAgent('repo').length).toBe(5);
    expect(asked).toBe(1);
    await h.store.shutdown();
  });
});
