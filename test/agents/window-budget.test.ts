// The window budget's result cap with compression off: nothing will shrink the history, so one step's results share
// what the whole request leaves of the window (with compression on, the threshold's room above the fixed part).
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/runtime/protocol/index.js';
import { ContextMeter, DEFAULT_COMPRESSION } from '../../src/actors/agents/compression/threshold.js';
import { WindowBudget } from '../../src/actors/agents/compression/window-budget.js';

const budget = (enabled: boolean): WindowBudget => new WindowBudget({ agent: 'repo', settings: { ...DEFAULT_COMPRESSION, enabled }, model: () => 'local-model', publish: () => undefined, window: () => Promise.resolve(8192) });
const sys: ChatMessage = { role: 'system', content: 'you are an agent' };
const history: ChatMessage[] = [sys, { role: 'user', content: 'read' }, { role: 'assistant', content: 'reading' }, { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'x'.repeat(24_000) }];

describe('the result cap with compression off', () => {
  it('follows what the whole request leaves of the window, shared by the batch; with compression on, the threshold room', async () => {
    // an empty history: a quarter of the window either way (8192 / 4 tokens at 3 chars a token)
    expect(await budget(false).resultChars([sys])).toBe(6144);
    expect(await budget(true).resultChars([sys])).toBe(6144);
    // ~6000 tokens of history: off, half of the ~2190 left; on, compression will make room, so the window share stands
    const off = await budget(false).resultChars(history);
    expect(off).toBeLessThan(3_400);
    expect(off).toBeGreaterThan(3_000);
    expect(await budget(true).resultChars(history)).toBe(6144);
    // four calls in the step share it (never under the 2000-char floor)
    const four = await budget(false).resultChars([sys], 4);
    expect(four).toBeGreaterThan(3_000);
    expect(four).toBeLessThanOrEqual(Math.floor((8192 / 4 / 2) * 3));
    expect(await budget(false).resultChars(history, 4)).toBe(2000);
  });
});

describe('calibration from successful calls', () => {
  const turn: ChatMessage[] = [{ role: 'assistant', content: 'reading', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] }, { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'word '.repeat(1000) }];
  const calibrated = async (extra: ChatMessage[]): Promise<number> => {
    const meter = new ContextMeter();
    const first = [sys, { role: 'user' as const, content: 'read' }];
    meter.report(100, first.length, first, []);
    const second = [...first, ...turn];
    const ours = await new ContextMeter().measure(turn);
    // the server counted twice what we count for the added turn
    meter.report(100 + 2 * ours, second.length, second, extra);
    await meter.measure(second); // a real count settles it
    return meter.calibration;
  };
  it('the difference of two figures, against our count of the messages added, scales later counts (never from a call that carried other extras)', async () => {
    expect(await calibrated([])).toBeCloseTo(2, 1);
    // the second call carried a per-call block the first did not: its figure is not the added messages' alone
    expect(await calibrated([{ role: 'user', content: '[blackboard index] ' + 'note '.repeat(500) }])).toBe(1);
  });
});
