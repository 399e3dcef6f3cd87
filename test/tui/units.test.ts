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
    expect(c.entries.map((e) => [e.agent, e.slot, e.text])).toEqual([['repo', 'repo#d1', 'a1 a2'], ['repo', 'repo#d2', 'b1 b2']]);
  });

  it("each delegation's work is folded under its line, nested ones deeper, whatever order the events arrive in", () => {
    const c = new Conversation();
    const start = (parent: string | null, agent: string, callId: string, child: string): void => void c.apply(env(parent, { type: 'delegation_start', agent, callId, child, task: `task of ${callId}` }));
    const tool = (d: string, agent: string, name: string): void => void c.apply(env(d, { type: 'tool_call_start', agent, callId: `${d}-${name}`, name, brief: name }));
    c.apply(env(null, { type: 'tool_call_start', agent: 'director', callId: 'A', name: 'delegate_repo', brief: 'task of A' }));
    start(null, 'director', 'A', 'repo');
    start(null, 'director', 'B', 'repo');
    c.apply(env('B', { type: 'ai_chunk', agent: 'repo', text: 'B talks' }));
    tool('A', 'repo', 'read_file');
    start('A', 'repo', 'A1', 'coding');
    tool('B', 'repo', 'list_dir');
    tool('A1', 'coding', 'edit_file');
    tool('A', 'repo', 'grep');
    c.apply(env(null, { type: 'delegation_end', agent: 'director', callId: 'A', child: 'repo', status: 'ok' }));
    c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: 'Both done.' }));
    expect(c.entries.map((e) => `${'  '.repeat(e.depth)}${e.text}`)).toEqual([
      '→ repo: task of A — ok',
      '  ⚙ read_file read_file',
      '  → coding: task of A1',
      '    ⚙ edit_file edit_file',
      '  ⚙ grep grep',
      '→ repo: task of B',
      '  B talks',
      '  ⚙ list_dir list_dir',
      'Both done.',
    ]);
  });

  it('a parallel writer\'s line names its worktree; a merge conflict is an error line naming the files and the branch', () => {
    const c = new Conversation();
    for (const id of ['A', 'B']) c.apply(env(null, { type: 'delegation_start', agent: 'director', callId: id, child: 'coding', task: `task of ${id}` }));
    for (const id of ['A', 'B']) c.apply(env(null, { type: 'delegation_worktree', agent: 'director', callId: id, child: 'coding', branch: `yagent/writer-${id}`, path: `/tmp/wt-${id}` }));
    c.apply(env(null, { type: 'delegation_worktree', agent: 'director', callId: 'A', child: 'coding', branch: 'yagent/writer-A', path: '/tmp/wt-A', merged: 'merged', files: ['a.txt'] }));
    c.apply(env(null, { type: 'delegation_end', agent: 'director', callId: 'A', child: 'coding', status: 'ok' }));
    c.apply(env(null, { type: 'delegation_worktree', agent: 'director', callId: 'B', child: 'coding', branch: 'yagent/conflict-B', path: '/tmp/wt-B', merged: 'conflict', files: ['shared.txt'] }));
    expect(c.entries.map((e) => [e.kind, e.text])).toEqual([
      ['delegation', '→ coding: task of A ⎇ yagent/writer-A — ok'],
      ['delegation', '→ coding: task of B ⎇ yagent/writer-B'],
      ['error', '✗ coding: merge conflict in shared.txt; its changes are kept on yagent/conflict-B'],
    ]);
  });

  it('the final ai_response (after ai_stream_end) replaces the streamed text instead of repeating it', () => {
    const c = new Conversation();
    c.apply(env(null, { type: 'ai_stream_start', agent: 'director', step: 1 }));
    c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: 'The ans' }));
    c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: 'wer' }));
    c.apply(env(null, { type: 'ai_stream_end', agent: 'director' }));
    c.apply(env(null, { type: 'ai_response', agent: 'director', text: 'The answer' }));
    c.apply(env(null, { type: 'tool_call_start', agent: 'director', callId: 'k', name: 'read_file', brief: 'a.txt' }));
    c.apply(env(null, { type: 'ai_stream_start', agent: 'director', step: 2 }));
    c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: 'next' }));
    expect(c.entries.map((e) => e.text)).toEqual(['The answer', '⚙ read_file a.txt', 'next']);
  });

  it('a step that only talked is superseded by the next one (a reminder asked again); the <thought> block is not shown', () => {
    const c = new Conversation();
    const step = (n: number, chunks: string[]): void => {
      c.apply(env(null, { type: 'ai_stream_start', agent: 'director', step: n }));
      for (const t of chunks) c.apply(env(null, { type: 'ai_chunk', agent: 'director', text: t }));
      c.apply(env(null, { type: 'ai_stream_end', agent: 'director' }));
      c.apply(env(null, { type: 'ai_response', agent: 'director', text: chunks.join('') }));
    };
    step(1, ['<tho', 'ught>\ngoal: g\nreason: r\n</thou', 'ght>\nThe answer is 4', '2.']);
    expect(c.entries.map((e) => e.text)).toEqual(['The answer is 42.']);
    step(2, ['<thought>\ngoal: g\n', 'reason: r\n</thought>\n', 'It is 42 < 43.']);
    expect(c.entries.map((e) => e.text)).toEqual(['It is 42 < 43.']);
    c.addUser('next question');
    step(3, ['Another answer.']);
    expect(c.entries.map((e) => e.text)).toEqual(['It is 42 < 43.', 'next question', 'Another answer.']);
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
    // keys no terminal sends are refused at load: the action would be unreachable
    for (const k of ['C-enter', 'C-h', 'C-i', 'C-S-a', 'M-.', 'C-1', 'S-1', 'C-tab', 'C-C-p', 'S-A']) expect(() => parseKeybindings({ pause: k }, 'cfg.toml'), k).toThrow(/is not a key a terminal sends/);
    // written the way blessed reports them: modifiers in C-M-S- order, a capital as S- + the letter
    expect(parseKeybindings({ pause: ['A', 'M-C-up', 'S-enter'] }, 'cfg.toml').pause).toEqual(['S-a', 'C-M-up', 'S-enter']);
  });
});

describe('structure', () => {
  it('no part of the TUI imports the app: each takes the narrow interface of parts.ts, only run.ts composes the app', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const dir = new URL('../../bin/tui/', import.meta.url);
    const importers: string[] = [];
    for (const f of await readdir(dir)) {
      if (!f.endsWith('.ts') || f === 'app.ts') continue;
      if (/from '\.\/app\.js'/.test(await readFile(new URL(f, dir), 'utf8'))) importers.push(f);
    }
    expect(importers).toEqual(['run.ts']);
  });
});
