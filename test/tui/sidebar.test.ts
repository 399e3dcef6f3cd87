// The sidebar painted into @xterm/headless from the dispatcher's events: tokens with the estimated cost, the
// context bar, compressions, the latest plan, the running actors and the notes share one height budget.
import { afterEach, describe, expect, it } from 'vitest';
import { emptyOutcome } from '../../bin/host/empty-outcome.js';
import type { TreeNode } from '../../bin/host/types.js';
import { quitScripted, scripted, type Scripted } from './scripted-backend.js';

afterEach(quitScripted);

const node = (name: string, state: string, children: TreeNode[] = []): TreeNode => ({ name, kind: 'actor', state, ageMs: 0, restarts: 0, mailboxDepth: 0, drops: 0, children });
const THOUGHT = 'goal: ship it\nstep: read the code\nreason: the task says so\nplan:\n[x] list the files\n[>] read the code\n[ ] write the fix';

/** A turn that called gpt-4o once (12k in, 2k of them cached, 500 out), compressed once, planned and wrote a note. */
async function busy(cols: number, rows: number): Promise<Scripted> {
  const s = await scripted(cols, rows);
  s.tree.node = node('root', 'running', [node('tasks', 'running', [node('task:t', 'running', [node('director', 'running'), node('delegation:c1:repo', 'running')])])]);
  await s.step('go\r');
  s.deliver({ type: 'model_info', agent: 'director', provider: 'openai', model: 'gpt-4o', contextWindow: 128000 });
  s.deliver({ type: 'llm_call_end', agent: 'director', model: 'gpt-4o', provider: 'openai', usage: { inputTokens: 12000, outputTokens: 500, cachedInputTokens: 2000, reasoningTokens: 0 }, durationMs: 1, retries: 0 });
  s.deliver({ type: 'context_compressed', agent: 'repo', beforeTokens: 9100, afterTokens: 5200 }, 'c1');
  s.deliver({ type: 'thinking', agent: 'repo', text: THOUGHT }, 'c1');
  s.deliver({ type: 'note_written', agent: 'repo', ref: 'repo/n1', status: 'ok', mentions: [] }, 'c1');
  await s.step('');
  return s;
}

/** The sidebar's column (the right 30 cells of a 100-column terminal), trailing spaces cut. */
const column = (s: Scripted, rows: number): string[] => s.term.rows().slice(0, rows).map((r) => r.slice(70).trimEnd());

describe('TUI sidebar', () => {
  it('shows the figures, the running actors, the plan and the notes from the events', async () => {
    const s = await busy(100, 30);
    // $ = (10000 × 2.5 + 2000 × 1.25 + 500 × 10) / 1e6 for gpt-4o; the bar: round(12000 / 128000 × 19 cells) = 2
    expect(column(s, 17)).toEqual([
      ' Tokens in 12k out 500',
      ' cached 2000 · ≈$0.03',
      ' ctx ██░░░░░░░░░░░░░░░░░   9%',
      ' compressed 1× 9100→5200',
      '',
      ' Activity',
      ' director running',
      ' repo running',
      '',
      ' Plan · repo',
      ' [x] list the files',
      ' [>] read the code',
      ' [ ] write the fix',
      '',
      ' Notes',
      ' repo/n1',
      '',
    ]);
  });

  it('on a short terminal the sections share the rows in priority order: the notes, then the plan give way first', async () => {
    const s = await busy(100, 12);
    // 12 rows - input (rule + 1) - status = 9 for the sidebar
    expect(column(s, 9)).toEqual([' Tokens in 12k out 500', ' cached 2000 · ≈$0.03', ' ctx ██░░░░░░░░░░░░░░░░░   9%', ' compressed 1× 9100→5200', '', ' Activity', ' director running', ' repo running', '']);
    s.term.resize(100, 15);
    await s.step('');
    expect(column(s, 12).slice(9)).toEqual([' Plan · repo', ' [x] list the files', ' [>] read the code']);
  });

  it('a finished turn keeps the host\'s cost estimate; a model without a price says so', async () => {
    const s = await busy(100, 30);
    s.end({ ...emptyOutcome('t', 'plain_text'), costUsd: 1.5, unpricedModels: ['local-model'] });
    await s.step('');
    expect(column(s, 2)[1]).toBe(' cached 2000 · ≈$1.50+?');
    // nothing runs between turns
    expect(column(s, 8).slice(5)).toEqual([' Activity', ' (idle)', '']);
  });
});

describe('TUI status line: a model call waiting for its server', () => {
  it('shows who waits and for how long (llm_waiting), and the text goes when the answer starts', async () => {
    const s = await scripted(100, 12);
    await s.step('go\r');
    s.deliver({ type: 'llm_waiting', agent: 'director', provider: 'local', model: 'm', phase: 'answer', waitedMs: 15_000, attempt: 1, maxAttempts: 6, over: false });
    await s.step('');
    const status = (): string => s.term.rows().at(-1) ?? '';
    expect(status()).toContain('director waiting 15 s for local');
    s.deliver({ type: 'llm_waiting', agent: 'director', provider: 'local', model: 'm', phase: 'answer', waitedMs: 15_000, attempt: 1, maxAttempts: 6, over: true });
    await s.step('');
    expect(status()).not.toContain('waiting');
  });
});
