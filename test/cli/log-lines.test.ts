// Which events become which log lines (file kind, level, message), and the sink the CLI runs them through.
import { describe, expect, it } from 'vitest';
import type { Envelope, Event } from '../../src/runtime/protocol/index.js';
import { LOGGED_EVENT_TYPES, logLineFor, logLinesFor, mirrorText } from '../../bin/host/log-lines.js';
import { LOG_BATCH_MS, startLogSink } from '../../bin/host/log-sink.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { Dispatcher } from '../../src/runtime/dispatcher.js';
import { NamedTasks } from '../../src/runtime/tasks.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { LogLine } from '../../src/store/api.js';

const env = (payload: Event, over: Partial<Envelope> = {}): Envelope => ({ seq: 1, taskId: 't1', delegationId: null, source: 'director', type: payload.type, lane: 'normal', ts: 1_700_000_000_000, payload, ...over }) as Envelope;

describe('log lines', () => {
  it('each logged event goes to its file kind with a level: log → app, llm_* → llm, tool_call_* → tool, delegation_* → delegate', () => {
    expect(logLineFor(env({ type: 'log', level: 'warn', message: 'x failed', source: 'recordTimeline' }))).toMatchObject({ kind: 'app', level: 'warn', event: 'log', msg: 'x failed', taskId: 't1', data: { source: 'recordTimeline', actor: 'director' } });
    expect(logLineFor(env({ type: 'llm_call_end', agent: 'coding', model: 'm', provider: 'p', retries: 0, durationMs: 5, error: 'HTTP 500' }))).toMatchObject({ kind: 'llm', level: 'error', msg: 'HTTP 500', agent: 'coding' });
    expect(logLineFor(env({ type: 'llm_call_start', agent: 'coding', model: 'm', provider: 'p' }))).toMatchObject({ kind: 'llm', level: 'info' });
    expect(logLineFor(env({ type: 'tool_call_result', agent: 'repo', callId: 'c', name: 'read_file', ok: false, display: 'x'.repeat(5000) }))).toMatchObject({ kind: 'tool', level: 'warn' });
    expect(String(logLineFor(env({ type: 'tool_call_result', agent: 'repo', callId: 'c', name: 'read_file', ok: true, display: 'x'.repeat(5000) }))?.data?.display).length).toBeLessThan(2100);
    expect(logLineFor(env({ type: 'delegation_end', agent: 'director', callId: 'c', child: 'repo', status: 'ok' }, { delegationId: null }))).toMatchObject({ kind: 'delegate', level: 'info', msg: 'director: delegation_end repo ok' });
    expect(logLineFor(env({ type: 'ai_chunk', agent: 'repo', text: 'tok' }))).toBeNull();
  });

  it('a failed model call (each retry, each call that gave up) is also a line in llm-error; a cancel or a success is not', () => {
    const retry = env({ type: 'llm_retry', agent: 'coding', provider: 'p', model: 'm', attempt: 2, maxAttempts: 3, waitMs: 1000, reason: 'HTTP 503', url: 'http://h/v1', code: 'SERVER_ERROR', status: 503 });
    const lines = logLinesFor(retry);
    expect(lines.map((l) => l.kind)).toEqual(['llm', 'llm-error']);
    expect(lines[1]).toMatchObject({ level: 'warn', msg: 'p: attempt 1/3 failed, retry in 1000 ms: HTTP 503', data: { provider: 'p', model: 'm', url: 'http://h/v1', status: 503, failedAttempt: 1 } });
    expect(lines[1]).toEqual({ ...lines[0], kind: 'llm-error' });
    const gaveUp = env({ type: 'llm_call_end', agent: 'coding', model: 'm', provider: 'p', retries: 1, durationMs: 5, error: 'model call failed…', code: 'CONNECTION', errno: 'ECONNREFUSED' });
    expect(logLinesFor(gaveUp).map((l) => [l.kind, l.level, l.data?.failedAttempt, l.data?.errno])).toEqual([['llm', 'error', 2, 'ECONNREFUSED'], ['llm-error', 'error', 2, 'ECONNREFUSED']]);
    const cancelled = env({ type: 'llm_call_end', agent: 'coding', model: 'm', provider: 'p', retries: 0, durationMs: 5, error: 'cancelled', code: 'CANCELLED' });
    expect(logLinesFor(cancelled).map((l) => [l.kind, l.level])).toEqual([['llm', 'info']]);
    expect(logLinesFor(env({ type: 'llm_call_end', agent: 'coding', model: 'm', provider: 'p', retries: 0, durationMs: 5 })).map((l) => l.kind)).toEqual(['llm']);
    expect(logLinesFor(env({ type: 'ai_chunk', agent: 'repo', text: 'tok' }))).toEqual([]);
  });

  it('-v: a failed tool call says what failed, and each line names its agent once (seen: "director: director: tool_call_result list_dir")', () => {
    const failed = logLineFor(env({ type: 'tool_call_result', agent: 'director', callId: 'c', name: 'list_dir', ok: false, display: 'not_found: Cannot list "x": ENOENT.\nmore' }));
    expect(failed && mirrorText(failed)).toBe('yagent: warn: director: list_dir failed: not_found: Cannot list "x": ENOENT.\n');
    const ended = logLineFor(env({ type: 'delegation_end', agent: 'director', callId: 'c', child: 'repo', status: 'ok' }));
    expect(ended && mirrorText(ended)).toBe('yagent: info: director: delegation_end repo ok\n');
  });

  it('the sink subscribes to every event type it maps (and to the llm retry/breaker events by name)', () => {
    for (const t of ['log', 'llm_call_start', 'llm_call_end', 'llm_retry', 'breaker_state', 'tool_call_start', 'tool_call_result', 'delegation_start', 'delegation_end', 'task_end']) expect(LOGGED_EVENT_TYPES).toContain(t);
    expect(LOGGED_EVENT_TYPES).not.toContain('ai_chunk');
  });
});

describe('the log sink', () => {
  it('holds lines LOG_BATCH_MS for the ones after them: a quick run\'s steps reach the store in one append; close sends what is held at once', async () => {
    const clock = new ManualClock();
    const dispatcher = new Dispatcher({ onWarn: () => undefined });
    const tasks = new NamedTasks();
    const appends: number[] = [];
    const store = { appendLogs: (lines: LogLine[]) => (appends.push(lines.length), Promise.resolve()) };
    const sink = startLogSink({ runtime: { dispatcher, tasks } as unknown as Runtime, store, storeReady: Promise.resolve(), onFailure: () => undefined, clock });
    const src = { name: 'director', taskId: 't1', delegationId: null };
    const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
    // three steps' worth of tool lines, each step's events its own batch
    for (let step = 0; step < 3; step++) {
      dispatcher.publish(src, { type: 'tool_call_start', agent: 'director', callId: `c${step}`, name: 'read_file', brief: 'f.txt' });
      dispatcher.publish(src, { type: 'tool_call_result', agent: 'director', callId: `c${step}`, name: 'read_file', ok: true, display: 'f.txt:1-5' });
      await settle();
      clock.advance(LOG_BATCH_MS / 10);
    }
    await settle();
    expect(appends).toEqual([]);
    clock.advance(LOG_BATCH_MS);
    await settle();
    expect(appends).toEqual([6]);
    // a line held when the sink closes goes then, without waiting for the window
    dispatcher.publish(src, { type: 'log', level: 'info', message: 'last' });
    await settle();
    expect(appends).toEqual([6]);
    await sink.close();
    expect(appends).toEqual([6, 1]);
    expect(clock.pending()).toBe(0);
  });
});
