import { describe, expect, it } from 'vitest';
import * as mod from '../../src/store/types-memory.js';
import { ConversationMemory } from '../../src/store/types-memory.js';
import type { MemoryJson } from '../../src/store/api.js';

describe('ConversationMemory (memory rule 3)', () => {
  it('exports no mutable array: snapshot and lastMessage are copies', () => {
    const m = new ConversationMemory(10);
    m.append({ role: 'system', content: 's' }, { role: 'user', content: 'u' });
    const snap = m.snapshot();
    snap.push({ role: 'user', content: 'intruder' });
    (snap[0] as { content: string }).content = 'changed';
    const last = m.lastMessage();
    if (last) (last as { content: string }).content = 'changed too';
    expect(m.snapshot()).toEqual([{ role: 'system', content: 's' }, { role: 'user', content: 'u' }]);
    expect(Object.keys(m)).toEqual([]);
    expect(Object.values(mod).some((v) => Array.isArray(v))).toBe(false);
  });

  it('keeps the wire shape {messages, max_size}', () => {
    const m = new ConversationMemory(7);
    m.addUser('hi');
    const json = JSON.parse(JSON.stringify(m)) as unknown;
    expect(json).toEqual({ messages: [{ role: 'user', content: 'hi' }], max_size: 7 });
    expect(ConversationMemory.fromJSON(json as MemoryJson).maxSize).toBe(7);
  });

  it('append trims to max size keeping the system message; replace loads without trimming', () => {
    const m = new ConversationMemory(3);
    m.append({ role: 'system', content: 's' });
    for (let i = 0; i < 5; i++) m.addUser(`u${i}`);
    expect(m.snapshot().map((x) => x.content)).toEqual(['s', 'u3', 'u4']);
    m.replace(Array.from({ length: 10 }, (_, i) => ({ role: 'user' as const, content: String(i) })));
    expect(m.length).toBe(10);
  });

  it('ConversationMemoryConcurrentAppendKeepsEveryMessage', async () => {
    const m = new ConversationMemory(0);
    await Promise.all(
      Array.from({ length: 20 }, async (_, w) => {
        for (let i = 0; i < 50; i++) {
          await Promise.resolve();
          m.addUser(`${w}-${i}`);
        }
      }),
    );
    expect(m.length).toBe(1000);
    expect(new Set(m.snapshot().map((x) => x.content)).size).toBe(1000);
  });
});
