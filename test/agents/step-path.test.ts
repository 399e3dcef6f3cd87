// Issue 29 (gap per step): what a step does between a tool result and the next request. The next call's context (the
// note index, a store round trip) is asked beside a read-only batch, and asked again after one that took too long or
// could write; the task-memory snapshot leaves after the step's request, never before it.
import { describe, expect, it } from 'vitest';
import { EARLY_CONTEXT_MAX_MS, runLoop, type LoopDeps } from '../../src/actors/agents/loop.js';
import { flagsFor } from '../../src/actors/agents/profiles.js';
import { TaskMemorySaver } from '../../src/actors/agents/task-memory-saver.js';
import type { BatchOptions, Recorder, ToolCallOutcome, ToolRunner } from '../../src/actors/agents/loop-contract.js';
import type { ChatMessage, ToolCall } from '../../src/actors/agents/wire-types.js';
import type { Clock } from '../../src/runtime/actor.js';
import { realClock } from '../../src/runtime/clock.js';
import { PauseController } from '../../src/runtime/pause.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../../src/actors/llm/types.js';
import { SurfaceToolRunner, type ToolRunnerDeps } from '../../src/actors/agents/tool-runner.js';
import { surfaceFor } from '../../src/actors/tools/profiles.js';

const usage = { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (text: string, toolCalls: ToolCall[]): LlmResponse => ({ text, toolCalls, reasoning: [], usage, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', provider: 'p', model: 'm' });
const read = (i: number): ToolCall => ({ id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: 'hello.txt' }) });
const initial: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }];

/** A two-read run whose every act lands in `log`; the context message names the ask it came from. */
function scripted(opts: { readsOnly: boolean; batchMs?: number }) {
  const log: string[] = [];
  const requests: LlmRequest[] = [];
  let skew = 0;
  const clock: Clock = { now: () => realClock.now() + skew, setTimeout: (fn, ms) => realClock.setTimeout(fn, ms) };
  let asks = 0;
  const tools: ToolRunner = {
    defs: () => [],
    readsOnly: () => opts.readsOnly,
    async runBatch(cs: readonly ToolCall[], b: BatchOptions) {
      log.push('batch');
      skew += opts.batchMs ?? 0; // the batch took this long
      const outcomes: ToolCallOutcome[] = cs.map((c) => ({ callId: c.id, name: c.name, content: 'hello', ok: true }));
      for (const o of outcomes) b.onOutcome?.(o);
      return Promise.resolve({ outcomes, fatal: null });
    },
  };
  let n = 0;
  const engine: LlmEngine = {
    describe: () => ({ provider: 'p', model: 'm' }),
    call: (req) => {
      log.push('call');
      requests.push(req);
      n++;
      return Promise.resolve(n <= 2 ? reply('', [read(n)]) : reply('done', []));
    },
  };
  const recorder: Recorder = { append: () => undefined, drain: () => Promise.resolve() };
  const deps: LoopDeps = {
    agent: 'chat',
    cwd: '/',
    engine,
    tools,
    flags: { ...flagsFor('chat', {}), requireThought: false },
    recorder,
    publish: () => undefined,
    pause: new PauseController(),
    signal: new AbortController().signal,
    clock,
    transient: () => {
      log.push('ask');
      return Promise.resolve([{ role: 'user', content: `[blackboard index] ask ${++asks}` }]);
    },
  };
  const contextOf = (req: LlmRequest): string => req.messages.filter((m) => m.content.startsWith('[blackboard index]')).map((m) => m.content).join('|');
  return { log, requests, deps, contextOf };
}

describe('the next call\'s context', () => {
  it('is asked as a read-only batch starts, once per call, and that answer goes with the next call', async () => {
    const s = scripted({ readsOnly: true });
    const out = await runLoop(s.deps, initial);
    expect(out.stopReason).toBe('plain_text');
    expect(s.log).toEqual(['ask', 'call', 'ask', 'batch', 'call', 'ask', 'batch', 'call']);
    expect(s.requests.map(s.contextOf)).toEqual(['[blackboard index] ask 1', '[blackboard index] ask 2', '[blackboard index] ask 3']);
  });

  it('is asked after a batch that can write (a note it wrote is in the next call)', async () => {
    const s = scripted({ readsOnly: false });
    await runLoop(s.deps, initial);
    expect(s.log).toEqual(['ask', 'call', 'batch', 'ask', 'call', 'batch', 'ask', 'call']);
  });

  it(`is asked again after a read-only batch that took longer than ${EARLY_CONTEXT_MAX_MS} ms; the later answer is sent`, async () => {
    const s = scripted({ readsOnly: true, batchMs: EARLY_CONTEXT_MAX_MS + 1 });
    await runLoop(s.deps, initial);
    expect(s.log).toEqual(['ask', 'call', 'ask', 'batch', 'ask', 'call', 'ask', 'batch', 'ask', 'call']);
    expect(s.requests.map(s.contextOf)).toEqual(['[blackboard index] ask 1', '[blackboard index] ask 3', '[blackboard index] ask 5']);
  });

  it('a read-only batch is one of tools whose effect is read: a write, a shell, a delegation or a note tool is not', () => {
    const runner = (agent: 'director' | 'coding'): SurfaceToolRunner =>
      new SurfaceToolRunner({ agent, surface: surfaceFor(agent), hooks: { customAgents: () => [] } } as unknown as ToolRunnerDeps);
    expect(runner('director').readsOnly(['read_file', 'grep', 'glob', 'list_dir', 'codeseek_search'])).toBe(true);
    expect(runner('director').readsOnly(['read_file', 'delegate_repo'])).toBe(false);
    expect(runner('director').readsOnly(['read_file', 'list_notes'])).toBe(false);
    expect(runner('director').readsOnly(['read_file', 'no_such_tool'])).toBe(false);
    expect(runner('coding').readsOnly(['read_file', 'edit_file'])).toBe(false);
    expect(runner('coding').readsOnly(['run_bash'])).toBe(false);
  });
});

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
    // one snapshot per step, each after its request left; the end of the run saves the last state
    expect(log).toEqual(['call', 'on the wire', 'save 2', 'call', 'on the wire', 'save 4', 'save 5']);
  });
});
