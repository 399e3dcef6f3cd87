// Issue 23 items 4 and 9 at the compressor: the meter counts what is really sent (tool definitions too), the threshold
// follows the run's window (and an overflow answer's), and small windows compress rarely.
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Event, ToolDef } from '../../src/runtime/protocol/index.js';
import type { RolloutRecord } from '../../src/store/api.js';
import { ContextMeter, DEFAULT_COMPRESSION } from '../../src/actors/agents/compression/threshold.js';
import { toolsEstimate, tokensOf } from '../../src/actors/agents/compression/tokens.js';
import { Compressor, type CompressorDeps } from '../../src/actors/agents/compression/compressor.js';
import { inPlaceBackend, TokenCounter } from '../../src/actors/llm/tokens.js';
import { ScriptedModel } from './harness.js';

const sys: ChatMessage = { role: 'system', content: 'you are an agent' };
const brief: ChatMessage = { role: 'user', content: 'read the files' };
const tool = (name: string, words: number): ToolDef => ({ name, description: 'word '.repeat(words), parameters: { type: 'object', properties: { path: { type: 'string', description: 'a path' } } } });
const TOOLS = [tool('read_file', 400), tool('grep', 400)];

function compressorDeps(over: Partial<CompressorDeps> = {}, events: Event[] = [], records: RolloutRecord[] = []): CompressorDeps {
  return {
    agent: 'repo',
    settings: { ...DEFAULT_COMPRESSION },
    summarizer: new ScriptedModel({ compression: Array.from({ length: 50 }, (_, i) => ({ text: `summary ${i}` })) }),
    model: () => 'unknown-model',
    brief: brief.content,
    recorder: { append: (r) => void records.push(...r), drain: () => Promise.resolve() },
    publish: (e) => void events.push(e),
    now: () => 1,
    signal: new AbortController().signal,
    ...over,
  };
}

describe('the meter counts what is really sent', () => {
  it('without a provider figure the tool definitions are counted (estimate and real count); with one they are in it already', async () => {
    const meter = new ContextMeter(undefined, () => TOOLS);
    const list = [sys, brief];
    expect(await meter.measure(list)).toBe(tokensOf(list) + toolsEstimate(TOOLS));
    // the messages alone are under 300, the request is not
    expect(await meter.over(list, 300)).toBe(true);
    expect(await new ContextMeter().over(list, 300)).toBe(false);
    meter.report(500, list.length);
    expect(await meter.measure(list)).toBe(500);
    const counter = new TokenCounter(inPlaceBackend);
    const real = new ContextMeter((m, t) => counter.countMessageTokens(m, 'gpt-4o', t), () => TOOLS);
    expect(await real.measure(list)).toBe((await counter.countMessageTokens(list, 'gpt-4o')) + (await real.toolTokens()));
    expect(await real.toolTokens()).toBeGreaterThan(800);
  });
});

describe('the threshold follows the run’s window', () => {
  it('window × 0.75 (the configured threshold still caps it); an overflow answer’s smaller window replaces it and is passed on', async () => {
    const learned: number[] = [];
    const c = new Compressor(compressorDeps({ window: () => Promise.resolve(8192), learnWindow: (n) => learned.push(n) }));
    expect(await c.threshold()).toBe(6144);
    c.learnWindow(6000);
    expect(await c.threshold()).toBe(4500);
    c.learnWindow(7000); // a larger one does not undo what the server said
    expect(await c.threshold()).toBe(4500);
    expect(learned).toEqual([6000]);
    const capped = new Compressor(compressorDeps({ settings: { ...DEFAULT_COMPRESSION, threshold: 3000 }, window: () => Promise.resolve(8192) }));
    expect(await capped.threshold()).toBe(3000);
    expect(await new Compressor(compressorDeps()).threshold()).toBe(120_000);
  });
});
