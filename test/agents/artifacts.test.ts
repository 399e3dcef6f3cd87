// The delegation's artifact step as configured: the default budget constant and YAGENT_ARTIFACT_DISABLE=1.
import { describe, expect, it } from 'vitest';
import { inPlaceBackend } from '../../src/actors/llm/tokens.js';
import { DEFAULT_ARTIFACT_TOKEN_BUDGET } from '../../src/actors/agents/run-task.js';
import { harnessConfig, makeHarness, ScriptedModel, exitCall, THOUGHT, toolMessages, type Harness } from './harness.js';

const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'a', 'lazy', 'dog', 'while', 'seven', 'birds', 'sing'];

/** A deliverable of `tokens` tokens or just over (cl100k, the scripted model's encoding): ~1 token per word,
 *  so it is longer than the 1200-char summary that replaces a spilled deliverable. */
async function textOf(tokens: number): Promise<string> {
  const words: string[] = [];
  const count = async (): Promise<number> => (await inPlaceBackend.count('cl100k_base', [words.join(' ')]))[0] ?? 0;
  while ((await count()) < tokens) words.push(WORDS[words.length % WORDS.length] ?? 'x');
  return words.join(' ');
}

/** One delegation whose deliverable is `text`; returns what the Director's context got and the artifacts listed. */
async function delegateOnce(h: Harness, text: string): Promise<{ result: string; artifacts: string[]; body: string | undefined }> {
  const model = new ScriptedModel({
    director: [{ text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'report' } }] }, { text: 'ok' }],
    repo: [exitCall(text)],
  });
  await h.run(model, 'report');
  const result = toolMessages(model.byAgent('director')[1]).at(-1) ?? '';
  const [note] = await h.store.listNotes(h.settings.boardId);
  return { result, artifacts: note?.handoff.artifacts ?? [], body: (await h.store.readNote(h.settings.boardId, note?.ref ?? ''))?.body };
}

describe('delegation artifact step, as configured', () => {
  it(`the artifact budget is DEFAULT_ARTIFACT_TOKEN_BUDGET (${DEFAULT_ARTIFACT_TOKEN_BUDGET}) tokens by default: just under stays in context, just over spills`, async () => {
    const under = await textOf(DEFAULT_ARTIFACT_TOKEN_BUDGET - 20);
    const over = await textOf(DEFAULT_ARTIFACT_TOKEN_BUDGET + 20);
    expect(DEFAULT_ARTIFACT_TOKEN_BUDGET).toBe(500); // seeds §4: default 500 tokens
    const h1 = makeHarness();
    expect(h1.settings.artifactTokenBudget).toBe(DEFAULT_ARTIFACT_TOKEN_BUDGET);
    const kept = await delegateOnce(h1, under);
    expect(kept.result).toContain(under);
    expect(kept.artifacts).toEqual([]);
    const spilled = await delegateOnce(makeHarness(), over);
    expect(spilled.result).not.toContain(over);
    expect(spilled.result).toMatch(/in artifact \d{8}-\d{6}-[0-9a-f]{8}/);
    expect(spilled.artifacts).toHaveLength(1);
    expect(spilled.body).toBe(over);
  });

  it('YAGENT_ARTIFACT_DISABLE=1 keeps the full deliverable in the context and writes no artifact', async () => {
    const long = await textOf(DEFAULT_ARTIFACT_TOKEN_BUDGET * 3);
    const on = await delegateOnce(makeHarness({}, { config: harnessConfig('', {}) }), long);
    expect(on.result).not.toContain(long);
    expect(on.artifacts).toHaveLength(1);
    const h = makeHarness({}, { config: harnessConfig('', { YAGENT_ARTIFACT_DISABLE: '1' }) });
    expect(h.settings.artifacts).toBe(false);
    const off = await delegateOnce(h, long);
    expect(off.result).toContain(long);
    expect(off.result).not.toContain('read_artifact');
    expect(off.artifacts).toEqual([]);
    expect(off.body).toBe(long);
  });
});
