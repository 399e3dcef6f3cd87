// Token counting: the model's encoding, per-message caching, and the Claude correction from reported usage.
import { describe, expect, it } from 'vitest';
import { encodingFor, inPlaceBackend, TokenCounter, toolText, type TokenBackend } from '../../src/actors/llm/tokens.js';
import type { ChatMessage, ToolDef } from '../../src/runtime/protocol/index.js';

/** The real in-place encoder, with every text it was asked to encode recorded. */
function recording(): { backend: TokenBackend; asked: string[][] } {
  const asked: string[][] = [];
  return { asked, backend: { count: (enc, texts) => (asked.push(texts), inPlaceBackend.count(enc, texts)), warm: inPlaceBackend.warm } };
}

describe('token counting', () => {
  it('o200k_base for the gpt-4o / gpt-4.1 / gpt-5 / o-series families, cl100k_base otherwise', () => {
    for (const m of ['gpt-4o', 'gpt-4o-mini', 'openai/gpt-4.1', 'gpt-5-codex', 'o3', 'o4-mini', 'o1-preview']) expect(encodingFor(m), m).toBe('o200k_base');
    for (const m of ['gpt-4', 'gpt-3.5-turbo', 'claude-sonnet-4', 'qwen2.5-coder', 'fake-model', 'omni-x']) expect(encodingFor(m), m).toBe('cl100k_base');
  });

  it('counts with the real encoding of the model, not chars/4', async () => {
    const t = new TokenCounter(inPlaceBackend);
    const text = 'é漢字ü'.repeat(250);
    expect(await t.countText(text, 'gpt-4o')).toBe(1000);
    expect(await t.countText(text, 'gpt-4')).toBe(1250);
    expect(await t.countText('hello world', 'gpt-4')).toBe(2);
    expect(await t.countText('<|endoftext|>', 'gpt-4o')).toBeGreaterThan(1); // special-token text is plain text
  });

  it('countMessageTokens encodes each message once per encoding, in one job for the new ones', async () => {
    const { backend, asked } = recording();
    const t = new TokenCounter(backend);
    const a: ChatMessage = { role: 'user', content: 'hello world' };
    const b: ChatMessage = { role: 'assistant', content: 'hi', toolCalls: [{ id: '1', name: 'grep', arguments: '{}' }] };
    const first = await t.countMessageTokens([a, b], 'gpt-4');
    expect(first).toBe(2 + 4 + (await t.countText('hi\ngrep{}', 'gpt-4')) + 4);
    asked.length = 0;
    const c: ChatMessage = { role: 'tool', toolCallId: '1', name: 'grep', content: 'x' };
    expect(await t.countMessageTokens([a, b, c], 'gpt-4')).toBe(first + (await t.countText('grep\nx', 'gpt-4')) + 4);
    expect(asked[0]).toEqual(['grep\nx']);
    await t.countMessageTokens([a], 'gpt-4o');
    expect(asked.at(-1)).toEqual(['hello world']); // another encoding is another count
  });

  it('Claude: the estimate is scaled by reported ÷ estimated input of the latest call (prompt = messages + tools)', async () => {
    const { backend, asked } = recording();
    const t = new TokenCounter(backend);
    const model = 'claude-sonnet-4';
    const history: ChatMessage[] = [{ role: 'system', content: 'you are terse' }, { role: 'user', content: 'word '.repeat(100) }];
    const tools: ToolDef[] = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
    const raw = await t.countMessageTokens(history, model);
    const estimate = raw + (await t.countText(toolText(tools[0] as ToolDef), model));
    asked.length = 0;
    const sent = [...history];
    t.observeUsage(model, { messages: sent, tools }, Math.round(estimate * 1.5));
    sent.push({ role: 'assistant', content: 'appended after the call' }); // the loop's list grows: not part of that prompt
    expect(asked).toEqual([]); // observing costs nothing: the next count estimates the prompt
    expect(await t.countMessageTokens(history, model)).toBe(Math.round(raw * 1.5));
    expect(asked).toEqual([[toolText(tools[0] as ToolDef)]]); // the history was cached per message: only the tool definition was new
    // the next call reports on a corrected history: the ratio is taken against the raw estimate, it never compounds
    t.observeUsage(model, { messages: history, tools }, estimate * 2);
    expect(await t.countMessageTokens(history, model)).toBe(raw * 2);
    expect(await t.countText('hello world', model)).toBe(4);
    t.observeUsage('gpt-4o', { messages: history, tools: [] }, 300); // OpenAI counts are exact: no correction
    expect(await t.countText('hello world', 'gpt-4o')).toBe(2);
  });

  it('Claude: a failed estimate fails that count only; the next count works uncorrected', async () => {
    let fail = false;
    const t = new TokenCounter({ count: (enc, texts) => (fail ? Promise.reject(new Error('pool gone')) : inPlaceBackend.count(enc, texts)), warm: inPlaceBackend.warm });
    const history: ChatMessage[] = [{ role: 'user', content: 'hello world' }];
    fail = true;
    t.observeUsage('claude-x', { messages: [{ role: 'user', content: 'never counted' }], tools: [] }, 100);
    await expect(t.countMessageTokens(history, 'claude-x')).rejects.toThrow('pool gone');
    fail = false;
    expect(await t.countMessageTokens(history, 'claude-x')).toBe(2 + 4);
  });
});
