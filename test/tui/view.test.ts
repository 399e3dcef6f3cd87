// streamLines renders only the entries that reach into the window and reuses unchanged ones: its lines equal the
// definition (every entry rendered, every line padded, the window cut from the whole) while entries grow and the
// width, height and scroll change, and an entry gets another predecessor.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../seeded.js';
import type { Entry } from '../../bin/tui/conversation.js';
import { markdownLines } from '../../bin/tui/markdown.js';
import { pad, wrapWords } from '../../bin/tui/text.js';
import { sidebarLines, streamLines, type SidebarData } from '../../bin/tui/view.js';

const PREFIX: Record<Entry['kind'], string> = { user: '› ', queued: '⧗ queued: ', text: '', tool: '', delegation: '', info: '· ', error: '! ' };

/** The definition: the whole stream, then the window `scroll` lines up from the bottom. */
function reference(entries: readonly Entry[], width: number, height: number, scroll: number): string[] {
  const all: string[] = [];
  let lastSlot: string | undefined;
  for (const e of entries) {
    const indent = '  '.repeat(Math.min(e.depth, 4));
    const inner = Math.max(1, width - indent.length);
    // a header where the slot changes, over visible text only
    if (e.kind === 'text' && e.text !== '' && e.slot !== lastSlot) all.push(pad(`${indent}${e.agent}`, width));
    lastSlot = e.slot;
    const lines = (e.kind === 'text' ? markdownLines(e.text, inner) : wrapWords(`${PREFIX[e.kind]}${e.text}`, inner)).map((l) => indent + l);
    for (const l of lines) all.push(pad(l, width));
    if (e.kind === 'user') all.push(pad('', width));
  }
  const s = Math.min(Math.max(0, scroll), Math.max(0, all.length - height));
  const view = all.slice(Math.max(0, all.length - height - s), all.length - s);
  while (view.length < height) view.push(pad('', width));
  return view;
}

const KINDS: Entry['kind'][] = ['user', 'text', 'text', 'text', 'tool', 'delegation', 'info', 'error'];
const AGENTS = ['director', 'repo', 'coding', 'you', ''];
const PIECES = ['word ', 'two words ', '\n', '\n\n', '# head\n', '- item\n', '```\ncode\n', '**bold** ', '雙寬 ', 'x'.repeat(30), '> quote\n'];

describe('stream window', () => {
  it('equals the whole stream cut to the window, as entries grow and the size and scroll change', () => {
    const next = mulberry32(11);
    const rnd = (k: number): number => next() % k;
    const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)] as T;
    for (let run = 0; run < 30; run++) {
      const entries: Entry[] = [];
      let [width, height, scroll] = [20, 5, 0];
      for (let step = 0; step < 40; step++) {
        // a new entry, or the newest (or an older) one grows, as streamed text does
        const grow = entries.length > 0 && rnd(3) > 0 ? (rnd(4) === 0 ? pick(entries) : entries[entries.length - 1]) : undefined;
        if (grow) grow.text += pick(PIECES);
        else {
          // two slots per agent (parallel delegations of one agent), and now and then an entry with no text yet
          const agent = pick(AGENTS);
          entries.push({ kind: pick(KINDS), agent, slot: `${agent}#${rnd(2)}`, depth: rnd(6), text: rnd(8) === 0 ? '' : pick(PIECES) });
        }
        // the size and scroll change now and then (a growing stream is mostly painted at one size)
        if (rnd(4) === 0) [width, height, scroll] = [1 + rnd(50), 1 + rnd(15), rnd(5) === 0 ? -3 : rnd(40)];
        const windows = [[width, height, scroll], [width, height, scroll], [1 + rnd(50), height, scroll], [width, height + 1, scroll], [width, height, scroll + 1], [width, height, scroll]] as const;
        for (const [w, h, sc] of windows) expect([run, step, w, h, sc, streamLines(entries, w, h, sc)]).toEqual([run, step, w, h, sc, reference(entries, w, h, sc)]);
        // a shorter stream (after /clear, say) gives an entry another predecessor: its agent header may come or go
        const tail = entries.slice(rnd(entries.length));
        expect([run, step, streamLines(tail, width, height, scroll)]).toEqual([run, step, reference(tail, width, height, scroll)]);
        // an empty stream: blank lines of the asked width
        for (const w of [width, width + 1]) expect(streamLines([], w, height, scroll)).toEqual(reference([], w, height, scroll));
      }
    }
  });

  it('the sidebar is made again whenever a figure, the cost, a compression, the plan, an activity or one of the last five notes changes', () => {
    const d: SidebarData = { tokens: { input: 0, output: 0, cached: 0 }, cost: null, context: null, compressed: null, plan: null, activity: [], notes: [] };
    const changes: (() => void)[] = [
      () => (d.tokens.input += 1200),
      () => (d.tokens.output += 30),
      () => (d.tokens.cached += 7),
      () => (d.cost = { usd: 0.002, unpriced: false }),
      () => (d.cost = { usd: 0.002, unpriced: true }),
      () => (d.context = { used: 1000, window: 8000 }),
      () => (d.context = { used: 2000, window: 8000 }),
      () => (d.compressed = { count: 1, agent: 'repo', tier: 1, before: 9000, after: 5000 }),
      () => (d.plan = { agent: 'repo', lines: ['[>] read'] }),
      () => (d.plan = { agent: 'repo', lines: ['[x] read', '[>] write'] }),
      () => d.activity.push('repo running'),
      () => (d.activity[0] = 'repo paused'),
      ...Array.from({ length: 7 }, (_, i) => () => d.notes.push(`note-${i}`)),
    ];
    for (const change of changes) {
      const before = sidebarLines(d, 36, 20);
      change();
      const now = sidebarLines(d, 36, 20);
      sidebarLines(d, 37, 20); // another size: the next call makes the lines afresh
      expect(now).toEqual(sidebarLines(d, 36, 20));
      expect(now).not.toEqual(before);
    }
  });
});
