// Scrolled up, the stream stays still (cells read from @xterm/headless): new lines below only count in `↑N PgDn`;
// PgDn to the bottom or End follows the newest lines again.
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { quitScripted, scripted, type Scripted } from './scripted-backend.js';

afterEach(quitScripted);

const PGUP = '\x1b[5~';
const PGDN = '\x1b[6~';
const END = '\x1b[F';

/** One stream line per event: a tool call of the Director. */
const line = (n: number): Envelope['payload'] => ({ type: 'tool_call_start', agent: 'director', callId: `c${n}`, name: 'read_file', brief: `line ${n}` });

/** The stream's rows (the sidebar is off below 80 columns), the status line's ↑N. */
const streamRows = (s: Scripted): string[] => s.term.screenText().split('\n').slice(0, 14);
const up = (s: Scripted): string => /↑(\d+) PgDn/.exec(s.term.screenText())?.[1] ?? 'following';

describe('TUI scrollback', () => {
  it('scrolled up, new lines do not move the view and count in ↑N; PgDn to the bottom and End follow again', async () => {
    const s = await scripted(60, 20);
    await s.step('go\r');
    for (let i = 1; i <= 80; i++) s.deliver(line(i)); // more than three pages: no PgUp below reaches the top
    await s.step('');
    expect(up(s)).toBe('following');
    await s.step(PGUP);
    const held = streamRows(s);
    const at = up(s);
    expect(held.join('\n')).not.toContain('line 80');
    // a flood below the window: not one cell of the stream moves, the count grows by the new lines
    for (let i = 81; i <= 100; i++) s.deliver(line(i));
    await s.step('');
    expect(streamRows(s)).toEqual(held);
    expect(Number(up(s))).toBe(Number(at) + 20);
    // PgUp/PgDn move from the anchor; PgDn back to the bottom follows the newest lines
    await s.step(PGUP);
    await s.step(PGDN);
    expect(streamRows(s)).toEqual(held);
    await s.step(PGDN.repeat(Math.ceil((Number(at) + 20) / s.app.page) + 1));
    expect(up(s)).toBe('following');
    expect(s.term.screenText()).toContain('line 100');
    s.deliver(line(101));
    await s.step('');
    expect(s.term.screenText()).toContain('line 101');
    // End returns at once
    await s.step(PGUP + PGUP);
    s.deliver(line(102));
    await s.step('');
    expect(s.term.screenText()).not.toContain('line 102');
    await s.step(END);
    expect(up(s)).toBe('following');
    expect(s.term.screenText()).toContain('line 102');
  });
});
