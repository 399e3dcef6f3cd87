// Markdown answers in the stream: the real TUI painted into @xterm/headless; exact cells at 40 and 80 columns.
import { afterEach, describe, expect, it } from 'vitest';
import { TuiApp } from '../../bin/tui/app.js';
import type { TuiBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS } from '../../bin/tui/keys.js';
import { markdownLines } from '../../bin/tui/markdown.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { strWidth } from '../../bin/tui/text.js';
import { makeTerm, type Term } from './harness.js';

const ANSWER = [
  '# Plan',
  '',
  'The **fix** is in `src/a.ts`; see [docs](https://example.com/docs) for *details*.',
  '',
  '- first item',
  '- second item that is long enough to wrap',
  '',
  '1. one',
  '2. two',
  '',
  '```ts',
  'const answer = 42; // verbatim, even past forty',
  '```',
].join('\n');

const apps: TuiApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
});

/** Paints one Director answer (published as ai_response) into a cols×rows terminal; returns its rows. */
async function paint(cols: number, rows: number, text = ANSWER): Promise<string[]> {
  return (await painted(cols, rows, text)).rows();
}

async function painted(cols: number, rows: number, text: string): Promise<Term> {
  let emit: (env: Envelope) => void = () => undefined;
  let answer = (): void => undefined;
  const backend: TuiBackend = {
    where: 'local',
    // the answer arrives once the app knows the task id, then the turn ends
    start: () => Promise.resolve({ taskId: 't', done: new Promise((r) => setImmediate(() => (answer(), r(null)))) }),
    cancel: () => Promise.resolve(),
    pause: () => Promise.resolve(),
    resume: () => Promise.resolve(),
    pauseActor: () => Promise.resolve([]),
    respond: () => Promise.resolve(),
    subscribe: (on) => ((emit = on), () => undefined),
    tree: () => Promise.resolve(null),
    timeline: () => Promise.resolve([]),
  };
  const term = makeTerm(cols, rows);
  const app = new TuiApp({ backend, bindings: DEFAULT_BINDINGS, io: term.io });
  apps.push(app);
  const payload = { type: 'ai_response', agent: 'director', text } as Envelope['payload'];
  answer = (): void => emit({ seq: 1, taskId: 't', delegationId: null, source: 'director', type: 'ai_response', lane: 'normal', ts: 0, payload });
  term.type('go\r');
  await term.settle();
  await new Promise((r) => setImmediate(r));
  app.frames.flush();
  await term.settle();
  return term;
}

const AT_40 = [
  '› go',
  '',
  'director',
  'Plan',
  '════',
  '',
  'The fix is in `src/a.ts`; see docs',
  '(https://example.com/docs) for details.',
  '',
  '• first item',
  '• second item that is long enough to',
  '  wrap',
  '',
  '1. one',
  '2. two',
  '',
  '│ const answer = 42; // verbatim, even p',
  '│ ast forty',
];
// 80 columns: the stream is 56 cells wide, the sidebar takes the rest
const AT_80 = [...AT_40.slice(0, 10), '• second item that is long enough to wrap', ...AT_40.slice(12, 16), '│ const answer = 42; // verbatim, even past forty'];

describe('Markdown answers', () => {
  it.each([
    [40, 40, AT_40],
    [80, 56, AT_80],
  ] as const)('%i columns: headings, emphasis, code, lists and links rendered into the stream (%i cells)', async (cols, stream, expected) => {
    const rows = await paint(cols, 30);
    expect(rows.slice(0, expected.length).map((r) => r.slice(0, stream))).toEqual(expected.map((l) => l.padEnd(stream)));
    expect(rows[expected.length]?.slice(0, stream)).toBe(' '.repeat(stream));
  });

  it('**bold** is bold and *emphasis* / _emphasis_ underlined, also where a span wraps; code and plain text are not', async () => {
    const term = await painted(40, 20, 'Plain **bold words that run past the end of the line** then *em* and _un_ `**c**`.');
    const rows = term.rows().slice(3, 5).map((r) => r.trimEnd());
    expect(rows).toEqual(['Plain bold words that run past the end', 'of the line then em and un `**c**`.']);
    const [a, b] = [term.styles(3), term.styles(4)];
    expect(a.slice(0, 39)).toBe('......' + 'b'.repeat(33));
    const second = rows[1] ?? '';
    const at = (word: string): number => second.indexOf(word);
    expect(b.slice(0, at(' then'))).toBe('b'.repeat(at(' then'))); // the span goes on after the wrap
    expect(b.slice(at('em and'), at('em and') + 2)).toBe('uu');
    expect(b.slice(at('un `'), at('un `') + 3)).toBe('uu.');
    expect(b.slice(at('`'))).toMatch(/^\.+$/);
    // the heading of an answer is bold too
    expect((await painted(40, 12, '# Title')).styles(3).slice(0, 5)).toBe('bbbbb');
  });

  it('a brace in model text is text, never a blessed tag: {bold}, {/}, {open} and {red-fg} show as typed, unstyled', async () => {
    const text = 'Keep {bold}this{/bold} and {/} and {open} and {red-fg}x{/red-fg} and \x01 as they are.';
    const term = await painted(80, 12, text);
    const shown = term.rows().slice(3, 5).map((r) => r.slice(0, 56).trimEnd()).join(' ');
    expect(shown).toBe('Keep {bold}this{/bold} and {/} and {open} and {red-fg}x{/red-fg} and  as they are.');
    expect(term.styles(3) + term.styles(4)).toMatch(/^\.+$/);
  });

  it('no rendered line is wider than its width, from 1 to 80 cells', () => {
    const sample = `${ANSWER}\n\n> quoted **text**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\n雙寬字符的句子 and an extraordinarilylongwordwithoutanyspaces`;
    for (let w = 1; w <= 80; w++) for (const l of markdownLines(sample, w)) expect([w, strWidth(l) <= w]).toEqual([w, true]);
  });
});
