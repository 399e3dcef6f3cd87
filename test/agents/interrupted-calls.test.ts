// Issue 24 item 3: a call that started and left no result is never run again on resume; its result says so, with
// what the workspace shows now for a call that can change it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeInterrupted, INTERRUPTED_EFFECT, INTERRUPTED_READ } from '../../src/actors/agents/interrupted-calls.js';
import { NOT_RECORDED, repairToolPairs } from '../../src/actors/agents/tool-pairs.js';
import type { ChatMessage } from '../../src/actors/agents/wire-types.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const assistant = (calls: [string, string, Record<string, unknown>][]): ChatMessage => ({ role: 'assistant', content: '', toolCalls: calls.map(([id, name, args]) => ({ id, name, arguments: JSON.stringify(args) })) });
const mutates = (name: string): boolean => name !== 'read_file';

describe('interrupted calls on resume', () => {
  it('a write shows the file as it is now, a missing file says so, run_bash names its command, a read may run again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'yagent-int-'));
    writeFileSync(join(dir, 'a.txt'), 'line 1\nline 2\n');
    const replay = repairToolPairs([
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      assistant([['c1', 'edit_file', { path: 'a.txt', old: 'x', new: 'y' }], ['c2', 'create_file', { path: 'b.txt', content: 'b' }], ['c3', 'run_bash', { command: 'echo hi >> log' }], ['c4', 'read_file', { path: 'a.txt' }], ['c5', 'create_file', { path: '../outside.txt', content: 'o' }]]),
      { role: 'tool', toolCallId: 'c0', name: 'x', content: 'dropped' },
    ]);
    expect(replay.filter((m) => m.role === 'tool').every((m) => m.content === NOT_RECORDED)).toBe(true);
    const out = (await describeInterrupted(replay, dir, mutates)).filter((m) => m.role === 'tool').map((m) => m.content);
    expect(out[0]).toContain(INTERRUPTED_EFFECT);
    expect(out[0]).toMatch(/a\.txt: exists, 14 bytes.*\nline 1\nline 2/s);
    expect(out[1]).toMatch(/b\.txt: does not exist/);
    expect(out[2]).toContain(INTERRUPTED_EFFECT);
    expect(out[2]).toContain('The command was: echo hi >> log');
    expect(out[3]).toBe(INTERRUPTED_READ);
    expect(out[4]).toMatch(/outside the workspace \(not inspected\)/);
  });

  it('a recorded result is kept as it is', async () => {
    dir = mkdtempSync(join(tmpdir(), 'yagent-int-'));
    const msgs: ChatMessage[] = [assistant([['c1', 'run_bash', { command: 'true' }]]), { role: 'tool', toolCallId: 'c1', name: 'run_bash', content: 'exit 0' }];
    expect(await describeInterrupted(msgs, dir, mutates)).toEqual(msgs);
  });
});
