// Issue 23 items 4 and 9 at the compressor: the meter counts what is really sent (tool definitions too), the threshold
// follows the run's window (and an overflow answer's), and small windows compress rarely.
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Event, ToolDef } from '../../src/runtime/protocol/index.js';
import type { RolloutRecord } from '../../src/store/api.js';
import { ContextMeter, DEFAULT_COMPRESSION } from '../../src/actors/agents/compression/threshold.js';
import { toolsEstimate, tokensOf } from '../../src/actors/agents/compression/tokens.js';
import { Compressor, type CompressorDeps } from '../../src/actors/agents/compression/compressor.js';
import { inPlaceBackend, TokenCounter } from '../../src/actors/llm/tokens.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { exitCall, harnessConfig, makeHarness, ScriptedModel, THOUGHT } from './harness.js';

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

  it('a first request (no turn, no plan: nothing any tier can cut) does not wait for the window; a later one does (issue 29)', async () => {
    let asked = 0;
    const window = (): Promise<number> => (asked++, Promise.resolve(2000));
    const c = new Compressor(compressorDeps({ window, tools: () => TOOLS }));
    // over the small window's threshold already, but there is nothing to compress: no probe wait, no tier
    expect(await c.fit([sys, { role: 'user', content: 'word '.repeat(4000) }])).toBe(0);
    expect(asked).toBe(0);
    const turn: ChatMessage[] = [{ role: 'assistant', content: 'reading', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] }, { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'line '.repeat(3000) }];
    const events: Event[] = [];
    const later = new Compressor(compressorDeps({ window, tools: () => TOOLS }, events));
    expect(await later.fit([sys, brief, ...turn, ...turn.map((m) => (m.role === 'tool' ? { ...m, toolCallId: 'c2' } : { ...m, toolCalls: [{ id: 'c2', name: 'read_file', arguments: '{}' }] })), { role: 'user', content: 'go on' }])).toBeGreaterThan(0);
    expect(asked).toBe(1);
    expect(events.some((e) => e.type === 'context_compressed')).toBe(true);
  });
});

describe('small windows compress rarely (item 9)', () => {
  /** A coding run (150 steps allowed) of `steps` reads of ten distinct ~3 KB files at the given threshold; the summary calls and every request. */
  async function longRun(steps: number, threshold: number): Promise<{ stop: string; summaries: number; requests: { messages: readonly ChatMessage[]; tools: readonly ToolDef[] }[]; summaryAt: number[]; summaryRequests: { messages: readonly ChatMessage[] }[] }> {
    const h = makeHarness({}, { config: harnessConfig(`[enhanced_commander]\ncontext_compression_threshold = ${threshold}\n`) });
    for (let f = 0; f < 10; f++) writeFileSync(join(h.workspace, `f${f}.ts`), Array.from({ length: 60 }, (_, l) => `export const value${f}_${l} = compute(${f}, ${l}); // line ${l} of file ${f}`).join('\n'));
    const reads = Array.from({ length: steps }, (_, i) => ({ text: THOUGHT, calls: [{ name: 'read_file', args: { path: `f${i % 10}.ts` } }], inputTokens: 0 }));
    const model = new ScriptedModel({ coding: [...reads, { text: THOUGHT, ...exitCall('done') }], compression: Array.from({ length: steps }, (_, i) => ({ text: `summary ${i}: read the files f0.ts to f9.ts; each exports values computed from its index. ${'Facts found so far. '.repeat(20)}` })) });
    const out = await runAgent(h.env(model), { agent: 'coding', role: 'coding', brief: 'read the files', settings: h.settings, delegationId: 'c', parentSessionId: 'p' });
    // the step (coding request number) before which each summary call was made
    let made = 0;
    const summaryAt = model.requests.flatMap((q) => (q.agent === 'coding' ? (made++, []) : q.agent === 'compression' ? [made] : []));
    return { stop: out.stopReason, summaries: summaryAt.length, requests: model.byAgent('coding'), summaryAt, summaryRequests: model.byAgent('compression') };
  }

  it('a 60-step run at an 8k threshold makes a summary call at most every 15 steps, and every request fits', async () => {
    const r = await longRun(60, 8000);
    expect(r.summaries).toBeGreaterThanOrEqual(2); // the incremental case happens
    expect(r.stop).toBe('agent_exit');
    expect(r.summaries).toBeGreaterThan(0);
    expect(r.summaries).toBeLessThanOrEqual(4);
    // at least ~15 steps between two summary calls
    expect(r.summaryAt.slice(1).every((at, i) => at - (r.summaryAt[i] ?? 0) >= 15)).toBe(true);
    // a later summary is incremental: the previous summary plus what happened since, not the whole history again
    for (const q of r.summaryRequests.slice(1)) {
      expect(q.messages[1]?.content).toMatch(/^Previous summary:\nsummary \d+: read the files/);
      expect(q.messages[0]?.content).toMatch(/previous summary and what happened since/);
    }
    const counter = new TokenCounter(inPlaceBackend);
    for (const q of r.requests) expect(await counter.countMessageTokens(q.messages, 'scripted-1', q.tools)).toBeLessThanOrEqual(8000);
  }, 120_000);
});

describe('tier 1 can cut a result again, shorter', () => {
  it('the marker counts both cuts; a cut that would keep as much or more leaves the result alone', async () => {
    const { cutToTokens, TRUNCATION_MARK } = await import('../../src/actors/agents/compression/tier1-rule.js');
    const text = 'x'.repeat(4000);
    const once = cutToTokens(text, 200);
    expect(once).toBe(`${'x'.repeat(800)}\n${TRUNCATION_MARK} 800 tokens removed]`);
    expect(cutToTokens(once, 200)).toBe(once);
    expect(cutToTokens(once, 50)).toBe(`${'x'.repeat(200)}\n${TRUNCATION_MARK} 950 tokens removed]`);
  });
});
