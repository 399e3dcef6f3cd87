// The compression pieces on their own: threshold and meter, each tier, the compacted record, the loop's overflow rule.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/runtime/protocol/index.js';
import type { RolloutRecord } from '../../src/store/api.js';
import { rebuild } from '../../src/store/rollout/replay.js';
import { ContextMeter, overThreshold, thresholdFor, DEFAULT_COMPRESSION } from '../../src/actors/agents/compression/threshold.js';
import { tokensOf } from '../../src/actors/agents/compression/tokens.js';
import { pairsIntact, recentStart } from '../../src/actors/agents/compression/turns.js';
import { ruleCompress, TRUNCATION_MARK } from '../../src/actors/agents/compression/tier1-rule.js';
import { emergencyCompress, SUMMARY_HEADER } from '../../src/actors/agents/compression/tier2-emergency.js';
import { ultimateCompress, REBUILD_HEADER } from '../../src/actors/agents/compression/tier3-ultimate.js';
import { inPlaceBackend, TokenCounter } from '../../src/actors/llm/tokens.js';
import { compactedRecord } from '../../src/actors/agents/compression/compacted.js';
import { thinklinkFromRecords } from '../../src/actors/agents/compression/thinklink.js';
import { Compressor, type CompressorDeps } from '../../src/actors/agents/compression/compressor.js';
import { settingsFrom } from '../../src/actors/agents/run-task.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import { harnessConfig, makeHarness, ScriptedModel, THOUGHT, exitCall } from './harness.js';

const big = (tag: string, kb = 4): string => `${tag} `.repeat((kb * 1024) / (tag.length + 1));
const sys: ChatMessage = { role: 'system', content: 'you are an agent' };
const brief: ChatMessage = { role: 'user', content: 'read the files' };
let id = 0;
/** One assistant turn calling `name` with its result. */
function turn(name: string, content: string, text = THOUGHT): ChatMessage[] {
  const callId = `t${++id}`;
  return [
    { role: 'assistant', content: text, toolCalls: [{ id: callId, name, arguments: '{}' }] },
    { role: 'tool', toolCallId: callId, name, content },
  ];
}

describe('threshold and meter', () => {
  it('the settings carry [enhanced_commander] to the one threshold rule: min(catalogue × 0.75, configured), 120000 with neither', () => {
    const at = (extra: string): ReturnType<typeof settingsFrom> => settingsFrom({ prompt: '', workspace: '/tmp', config: harnessConfig(extra) }, 't', 'b');
    expect(thresholdFor(at('').compression, 'gpt-4o')).toBe(96_000);
    expect(thresholdFor(at('[enhanced_commander]\ncontext_compression_threshold = 8000\n').compression, 'gpt-4o')).toBe(8000);
    expect(thresholdFor(at('').compression, 'unknown-model')).toBe(120_000);
    expect(thresholdFor(at('[enhanced_commander]\ncontext_compression_threshold = 500000\n').compression, 'gpt-4o')).toBe(96_000);
  });

  it('measures the provider-reported input plus the messages added since, and forgets it when the list is rewritten', async () => {
    const meter = new ContextMeter();
    const list: ChatMessage[] = [sys, brief];
    expect(await meter.measure(list)).toBe(tokensOf(list));
    meter.report(5000, list.length);
    const added = turn('read_file', 'x'.repeat(400));
    list.push(...added);
    expect(await meter.measure(list)).toBe(5000 + tokensOf(added));
    expect(await overThreshold(meter, list, 5000)).toBe(true);
    expect(await overThreshold(meter, list, 6000)).toBe(false);
    meter.invalidate();
    expect(await meter.measure(list)).toBe(tokensOf(list));
    meter.report(0, list.length);
    expect(await meter.measure(list)).toBe(tokensOf(list));
  });

  // '漢' is 2 cl100k tokens per character: 4000 tokens where chars/4 says 500
  const han = (chars: number): string => '漢'.repeat(chars);
  const counter = new TokenCounter(inPlaceBackend);
  const model = 'unknown-model'; // cl100k_base

  it('counts the messages added since the provider-reported input with the real encoding of the model, not chars/4', async () => {
    const counted: number[] = [];
    const meter = new ContextMeter((m) => (counted.push(m.length), counter.countMessageTokens(m, model)));
    const list: ChatMessage[] = [sys, brief];
    meter.report(1000, list.length);
    const added = turn('read_file', han(2000));
    list.push(...added);
    const real = await counter.countMessageTokens(added, model);
    expect(real).toBeGreaterThan(4 * tokensOf(added) - 100);
    expect(await meter.measure(list)).toBe(1000 + real);
    expect(counted).toEqual([2]); // only the messages the provider's figure does not cover
    expect(await overThreshold(meter, list, 1000 + tokensOf(added) * 2)).toBe(true);
    // a list whose UTF-8 bytes are under the threshold cannot be over it: no count at all
    counted.length = 0;
    expect(await overThreshold(meter, [sys, brief, ...turn('read_file', 'small')], 10_000)).toBe(false);
    expect(counted).toEqual([]);
  });
});

describe('tier 1 (rule)', () => {
  it('cuts old low-value results first, never design/thinking outputs or the last 3 turns, and keeps every pair', () => {
    const list = [sys, brief, ...turn('deepthinking', big('idea')), ...turn('edit_file', big('diff')), ...turn('read_file', big('old')), ...turn('read_file', big('a')), ...turn('read_file', big('b')), ...turn('read_file', big('c'))];
    const protectFrom = recentStart(list, 3);
    const total = tokensOf(list);
    const r = ruleCompress(list, { keepTokens: 50, target: total - 500, protectFrom });
    expect(r.changed).toBe(true);
    const tools = r.messages.filter((m) => m.role === 'tool');
    // only the old read_file went: the target was reached before the medium-value edit_file result
    expect(tools.map((m) => m.content.includes(TRUNCATION_MARK))).toEqual([false, false, true, false, false, false]);
    expect(r.tokens).toBe(tokensOf(r.messages));
    const all = ruleCompress(list, { keepTokens: 50, target: 0, protectFrom });
    expect(all.messages.filter((m) => m.role === 'tool').map((m) => m.content.includes(TRUNCATION_MARK))).toEqual([false, true, true, false, false, false]);
    expect(pairsIntact(all.messages)).toBe(true);
    expect(ruleCompress(all.messages, { keepTokens: 50, target: 0, protectFrom }).changed).toBe(false);
  });
});

describe('tier 2 (emergency)', () => {
  it('keeps the last 3 turns verbatim and summarises the rest without the plans; [system, one user summary] + recent', async () => {
    const model = new ScriptedModel({ compression: [{ text: 'the summary' }] });
    const recent = [...turn('read_file', 'r1'), ...turn('read_file', 'r2'), ...turn('read_file', 'r3')];
    const list = [sys, brief, ...turn('read_file', big('early')), ...turn('grep', 'hits'), ...recent];
    const out = await emergencyCompress(list, { summarizer: model, brief: brief.content, signal: new AbortController().signal });
    expect(out?.slice(2)).toEqual(recent);
    expect(out?.[0]).toBe(sys);
    expect(out?.[1]).toMatchObject({ role: 'user' });
    expect(out?.[1]?.content).toContain(SUMMARY_HEADER);
    expect(out?.[1]?.content).toContain('the summary');
    expect(out?.[1]?.content).toContain('read the files');
    const asked = JSON.stringify(model.byAgent('compression')[0]?.messages);
    expect(asked).toContain('early');
    expect(asked).not.toContain('<thought>');
    expect(pairsIntact(out ?? [])).toBe(true);
  });

  it('a failed summary call still compresses (the calls made, listed); nothing older than the recent turns = no-op', async () => {
    const model = new ScriptedModel({ compression: [{ fail: 'down' }] });
    const list = [sys, brief, ...turn('grep', big('x')), ...turn('read_file', 'r1'), ...turn('read_file', 'r2'), ...turn('read_file', 'r3')];
    const out = await emergencyCompress(list, { summarizer: model, brief: 'b', signal: new AbortController().signal });
    expect(out?.[1]?.content).toContain('Tool calls made so far');
    expect(tokensOf(out ?? [])).toBeLessThan(tokensOf(list));
    expect(await emergencyCompress([sys, brief, ...turn('read_file', 'r1')], { summarizer: model, brief: 'b', signal: new AbortController().signal })).toBeNull();
  });

  it('the summary call reads at most maxChars of transcript, newest kept', async () => {
    const model = new ScriptedModel({ compression: [{ text: 'ok' }] });
    const list = [sys, brief, ...turn('read_file', big('early')), ...turn('read_file', 'LATEST-OLD'), ...turn('read_file', 'r1'), ...turn('read_file', 'r2'), ...turn('read_file', 'r3')];
    await emergencyCompress(list, { summarizer: model, brief: 'b', signal: new AbortController().signal, maxChars: 200 });
    const read = model.byAgent('compression')[0]?.messages[1]?.content ?? '';
    expect(read.length).toBeLessThanOrEqual(210);
    expect(read).toContain('LATEST-OLD');
  });
});

describe('tier 3 (ultimate)', () => {
  it('rebuilds from the kept plans and the last turn, then hard-truncates to the target', () => {
    const list = [sys, brief, ...turn('read_file', big('a', 8)), ...turn('read_file', big('b', 8))];
    const plans = [1, 2, 3].map((s) => ({ step: s, text: `plan ${s}` }));
    const out = ultimateCompress(list, { brief: 'the task', plans: plans.slice(-2), target: 1000, keepTokens: 100 }) ?? [];
    expect(out[1]?.content).toContain(REBUILD_HEADER);
    expect(out[1]?.content).toContain('plan 3');
    expect(out[1]?.content).not.toContain('plan 1');
    expect(tokensOf(out)).toBeLessThanOrEqual(1000);
    expect(pairsIntact(out)).toBe(true);
  });
});

describe('escalation and the compacted record', () => {
  function deps(events: Event[], records: RolloutRecord[], over: Partial<typeof DEFAULT_COMPRESSION> = {}): CompressorDeps {
    return {
      agent: 'repo',
      settings: { ...DEFAULT_COMPRESSION, threshold: 3000, ...over },
      summarizer: new ScriptedModel({ compression: [{ text: 's1' }, { text: 's2' }] }),
      model: () => 'unknown-model',
      brief: brief.content,
      recorder: { append: (r) => void records.push(...r), drain: () => Promise.resolve() },
      publish: (e) => void events.push(e),
      now: () => 1,
      signal: new AbortController().signal,
    };
  }
  const compressor = (events: Event[], records: RolloutRecord[], over: Partial<typeof DEFAULT_COMPRESSION> = {}): Compressor => new Compressor(deps(events, records, over));

  it('a provider overflow walks the tiers one at a time; tier 3 needs a plan in thinklink; replaying the records rebuilds each list', async () => {
    const events: Event[] = [];
    const records: RolloutRecord[] = [];
    const c = compressor(events, records);
    const list = [sys, brief, ...turn('read_file', big('a')), ...turn('read_file', big('b')), ...turn('read_file', 'c'), ...turn('read_file', 'd'), ...turn('read_file', 'e')];
    const written: RolloutRecord[] = list.map((m) => ({ type: 'response_item', ts: 0, payload: m }));
    const replayed = (): ChatMessage[] => rebuild([...written, ...records]).messages;
    expect(await c.recover(list, 0)).toBe(1);
    expect(replayed()).toEqual(list);
    expect(await c.recover(list, 1)).toBe(2);
    expect(replayed()).toEqual(list);
    expect(await c.recover(list, 2)).toBe(0); // no plan yet
    c.notePlan(7, { goal: 'g', step: 's', reason: 'r', plan: [] });
    expect(await c.recover(list, 2)).toBe(3);
    expect(replayed()).toEqual(list);
    expect(events.map((e) => e.type)).toEqual(['context_compressed', 'context_emergency_compressed', 'context_ultimate_compressed']);
    // resume: the plans come back from the rollout, so tier 3 is available again in a new compressor
    const plans = thinklinkFromRecords(records);
    expect(plans).toEqual([{ step: 7, text: c.thinklink.last(0)[0]?.text }]);
    const resumed = new Compressor({ ...deps([], []), plans });
    const again = [sys, brief, ...turn('read_file', big('z')), ...turn('read_file', 'y')];
    expect(await resumed.recover(again, 2)).toBe(3);
    expect(await new Compressor(deps([], [])).recover(again, 2)).toBe(0);
  });

  it('before a call: nothing under the threshold; over it, tier 1 (harder pass by pass) and tier 2 only when tier 1 cannot get under; enable_ultimate_compression=false keeps tier 3 off', async () => {
    const events: Event[] = [];
    const c = compressor(events, [], { enableUltimate: false });
    const small = [sys, brief, ...turn('read_file', 'tiny')];
    expect(await c.fit(small)).toBe(0);
    const list = [sys, brief, ...turn('read_file', big('a')), ...turn('read_file', big('b')), ...turn('read_file', big('c')), ...turn('read_file', big('d'))];
    // old reads cut harder (only the last turn kept whole): under the threshold without a model call
    expect(await c.fit(list)).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['context_compressed']);
    // design outputs are never cut: tier 1 has nothing, tier 2 summarises
    const designs = [sys, brief, ...['a', 'b', 'c', 'd'].flatMap((x) => turn('design', big(x)))];
    expect(await c.fit(designs)).toBe(2);
    expect(events.map((e) => e.type)).toEqual(['context_compressed', 'context_emergency_compressed']);
    c.notePlan(1, { goal: 'g', step: 's', reason: 'r', plan: [] });
    expect(await c.recover(designs, 2)).toBe(0);
  });

  it('the over-threshold decision and the reported before/after tokens come from the real counts', async () => {
    const events: Event[] = [];
    const counter = new TokenCounter(inPlaceBackend);
    const c = new Compressor({ ...deps(events, []), tokens: counter });
    // chars/4 says under 1000 tokens (threshold 3000); cl100k says over 4000
    const list = [sys, brief, ...[1, 2, 3, 4, 5, 6].flatMap((i) => turn('read_file', `${i} ${'漢'.repeat(350)}`))];
    expect(tokensOf(list)).toBeLessThan(1000);
    const real = await counter.countMessageTokens(list, 'unknown-model');
    expect(real).toBeGreaterThan(4000);
    // chars/4 alone would not have compressed at all; the real count does (tier 1's hardest pass cuts the old results)
    expect(await c.fit(list)).toBeGreaterThan(0);
    expect(events[0]).toMatchObject({ beforeTokens: real });
    const last = events.at(-1);
    expect(last && 'afterTokens' in last ? last.afterTokens : -1).toBe(await counter.countMessageTokens(list, 'unknown-model'));
    expect(await counter.countMessageTokens(list, 'unknown-model')).toBeLessThanOrEqual(3000);
  });

  it('the compacted record replaces only the changed prefix', () => {
    const tail = turn('read_file', 'kept');
    const before = [sys, brief, ...turn('read_file', 'old'), ...tail];
    const after = [sys, { role: 'user' as const, content: 'summary' }, ...tail];
    const rec = compactedRecord(before, after, 1);
    expect(rec).toMatchObject({ type: 'compacted', payload: { replacesCount: 4, messages: [sys, { content: 'summary' }] } });
  });
});

describe('the loop and a context-length error', () => {
  const sub = (h: ReturnType<typeof makeHarness>) => ({ agent: 'repo', role: 'repo' as const, brief: 'go', settings: h.settings, delegationId: 'c', parentSessionId: 'p' });

  it('with compression off it ends with llm_error after one request: never a blind retry', async () => {
    const h = makeHarness({ compression: { ...DEFAULT_COMPRESSION, enabled: false } });
    const model = new ScriptedModel({ repo: [{ fail: 'prompt is too long', code: 'CONTEXT_LENGTH' }, { text: 'late' }] });
    const out = await runAgent(h.env(model), sub(h));
    expect(out.stopReason).toBe('llm_error');
    expect(model.byAgent('repo')).toHaveLength(1);
  });

  it('with compression on, the next tier runs and the step is retried once', async () => {
    const h = makeHarness();
    const read = { text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] };
    const model = new ScriptedModel({ repo: [read, read, read, read, { fail: 'context_length_exceeded', code: 'CONTEXT_LENGTH' }, { text: THOUGHT, ...exitCall('done') }], compression: [{ text: 'sum' }] });
    const out = await runAgent(h.env(model), sub(h));
    expect(out.stopReason).toBe('agent_exit');
    const reqs = model.byAgent('repo');
    expect(reqs).toHaveLength(6);
    expect(h.events.some((e) => e.type === 'context_emergency_compressed' || e.type === 'context_compressed')).toBe(true);
    expect(pairsIntact(reqs[5]?.messages ?? [])).toBe(true);
  });
});
