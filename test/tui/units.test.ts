// The TUI's pure parts: stream slots, frame coalescing, key bindings.
import { describe, expect, it } from 'vitest';
import { Conversation } from '../../bin/tui/conversation.js';
import { FrameScheduler, type FrameClock } from '../../bin/tui/frame.js';
import { DEFAULT_BINDINGS, resolveBindings } from '../../bin/tui/keys.js';
import { parseKeybindings } from '../../src/runtime/config/keybindings.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';

let seq = 0;
const env = (delegationId: string | null, payload: Envelope['payload']): Envelope => ({ seq: ++seq, taskId: 't', delegationId, source: 'x', type: payload.type, lane: 'normal', ts: 0, payload });

describe('conversation slots', () => {
  it('parallel delegations of one agent never interleave: the slot key is agent#delegationId', () => {
    const c = new Conversation();
    for (const [d, t] of [['d1', 'a1 '], ['d2', 'b1 '], ['d1', 'a2'], ['d2', 'b2']] as const) c.apply(env(d, { type: 'ai_chunk', agent: 'repo', text: t }));
    expect(c.entries.map((e) => [e.agent, e.text])).toEqual([['repo', 'a1 a2'], ['repo', 'b1 b2']]);
  });

  it('the final ai_response (after ai_stream_end) replaces the streamed text instead of repeating it', () => {
    const c = new Conversation();
    c.apply(env(null, { type: 'ai_stream_start', agent: 'director', step: 1 }));
    c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: 'The ans' }));
    c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: 'wer' }));
    c.apply(env(null, { type: 'ai_stream_end', agent: 'director' }));
    c.apply(env(null, { type: 'ai_response', agent: 'director', text: 'The answer' }));
    c.apply(env(null, { type: 'ai_stream_start', agent: 'director', step: 2 }));
    c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: 'next' }));
    expect(c.entries.map((e) => e.text)).toEqual(['The answer', 'next']);
  });
});

describe('frame coalescing', () => {
  it('a flood of marks between two frames is one render, never more than fps per second', () => {
    let now = 0;
    const timers: { at: number; fn: () => void }[] = [];
    const clock: FrameClock = { now: () => now, setTimeout: (fn, ms) => (timers.push({ at: now + ms, fn }), { cancel: () => timers.splice(0) }) };
    let renders = 0;
    const f = new FrameScheduler(() => renders++, 30, clock);
    f.flush();
    for (let i = 0; i < 10_000; i++) f.mark();
    expect(timers).toHaveLength(1);
    expect(timers[0]?.at).toBeCloseTo(1000 / 30);
    now = timers[0]?.at ?? 0;
    timers.shift()?.fn();
    expect(renders).toBe(2);
  });
});

describe('[tui.keybindings]', () => {
  it('replaces an action\'s defaults (no alias kept) and rejects unknown actions and malformed keys', () => {
    const b = resolveBindings(parseKeybindings({ pause: 'f2' }, 'cfg.toml'));
    expect(b.pause).toEqual(['f2']);
    expect(b.send).toEqual(DEFAULT_BINDINGS.send);
    expect(() => parseKeybindings({ pauze: 'C-p' }, 'cfg.toml')).toThrow(/unknown TUI action "pauze"/);
    expect(() => parseKeybindings({ pause: 'Ctrl+P' }, 'cfg.toml')).toThrow(/"Ctrl\+P" is not a key/);
  });
});
