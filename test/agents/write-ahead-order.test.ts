// Issue 24 item 3: in a batch, each call's result reaches the rollout in call order as soon as it is in, so the
// write-ahead record of the next effect carries the results before it (a kill during the second write leaves the
// first one recorded, not "interrupted").
import { describe, expect, it } from 'vitest';
import { runLoop } from '../../src/actors/agents/loop.js';
import { flagsFor } from '../../src/actors/agents/profiles.js';
import type { BatchOptions, Recorder, ToolCallOutcome, ToolRunner } from '../../src/actors/agents/loop-contract.js';
import type { ChatMessage, RolloutRecordLike, ToolCall } from '../../src/actors/agents/wire-types.js';
import { PauseController } from '../../src/runtime/pause.js';
import { realClock } from '../../src/runtime/clock.js';
import type { LlmEngine, LlmResponse } from '../../src/actors/llm/types.js';

const usage = { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (text: string, toolCalls: ToolCall[]): LlmResponse => ({ text, toolCalls, reasoning: [], usage, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', provider: 'p', model: 'm' });

describe('results recorded in call order as they come in', () => {
  it('the second effect\'s write-ahead already holds the first call\'s result; the messages keep call order', async () => {
    const records: RolloutRecordLike[] = [];
    const toolResultsAt: number[] = [];
    const recorder: Recorder = { append: (r) => void records.push(...r), drain: () => Promise.resolve() };
    recorder.writeAhead = () => {
      toolResultsAt.push(records.filter((r) => r.type === 'response_item' && (r.payload as ChatMessage).role === 'tool').length);
      return Promise.resolve();
    };
    const calls: ToolCall[] = [1, 2, 3].map((i) => ({ id: `c${i}`, name: 'create_file', arguments: JSON.stringify({ path: `f${i}`, content: '' }) }));
    const tools: ToolRunner = {
      defs: () => [],
      async runBatch(cs: readonly ToolCall[], opts: BatchOptions) {
        const outcomes: ToolCallOutcome[] = [];
        for (const c of cs) {
          await opts.beforeEffect?.();
          const o = { callId: c.id, name: c.name, content: `wrote ${c.id}`, ok: true };
          outcomes.push(o);
          opts.onOutcome?.(o);
        }
        return { outcomes, fatal: null };
      },
    };
    let n = 0;
    const engine: LlmEngine = { describe: () => ({ provider: 'p', model: 'm' }), call: () => Promise.resolve(n++ === 0 ? reply('', calls) : reply('done', [])) };
    const out = await runLoop({ agent: 'chat', cwd: '/', engine, tools, flags: { ...flagsFor('chat', {}), requireThought: false }, recorder, publish: () => undefined, pause: new PauseController(), signal: new AbortController().signal, clock: realClock }, [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }]);
    expect(out.stopReason).toBe('plain_text');
    expect(toolResultsAt).toEqual([0, 1, 2]);
    const tool = (m: ChatMessage): string => (m.role === 'tool' ? m.toolCallId : '');
    expect(out.messages.filter((m) => m.role === 'tool').map(tool)).toEqual(['c1', 'c2', 'c3']);
    // each result recorded exactly once
    const recorded = records.filter((r) => r.type === 'response_item' && (r.payload as ChatMessage).role === 'tool').map((r) => tool(r.payload as ChatMessage));
    expect(recorded).toEqual(['c1', 'c2', 'c3']);
  });
});
