// The input box in a real terminal emulator (@xterm/headless): the new-line keys blessed cannot see, bracketed
// paste, long input growing the box by its wrapped rows, and in-place editing with the terminal's cursor on it.
import { afterEach, describe, expect, it } from 'vitest';
import { translateKeys } from '../../bin/tui/key-input.js';
import { TuiScreen } from '../../bin/tui/screen.js';
import { canonicalKey } from '../../src/runtime/config/keybindings.js';
import { makeTerm } from './harness.js';
import { quitScripted, scripted, type Scripted } from './scripted-backend.js';

afterEach(quitScripted);

/** The typed rows: between the input's rule and the status line. */
function typed(s: Scripted): string[] {
  const rows = s.term.rows().map((r) => r.trimEnd());
  const rule = rows.findIndex((r) => /^─+$/.test(r));
  return rows.slice(rule + 1, -1);
}

describe('TUI input box', () => {
  it('Alt+Enter and Shift+Enter start a new line in every form a terminal sends them; a lone Esc still clears; Enter sends', async () => {
    const s = await scripted(60, 20);
    // ESC CR (xterm, tmux), CSI-u Shift+Enter (kitty), modifyOtherKeys Shift+Enter (xterm), CSI-u Alt+Enter
    await s.step('one\x1b\rtwo\x1b[13;2uthree\x1b[27;2;13~four\x1b[13;3ufive');
    expect(typed(s)).toEqual(['> one', 'two', 'three', 'four', 'five']);
    await s.step('\x1b');
    expect(s.app.input.text).toBe('');
    await s.step('a\x1b\rb');
    await s.step('\r');
    expect(s.calls).toEqual(['start: a\nb']);
  });

  it('a bracketed paste is text: its line breaks and tabs are typed, not Enter; one read may split it', async () => {
    const s = await scripted(60, 20);
    await s.step('\x1b[200~first line\r\nsecond\tline\rthird');
    await s.step(' line\x1b[201~!');
    expect(s.app.input.text).toBe('first line\nsecond  line\nthird line!');
    expect(s.calls).toEqual([]);
    expect(translateKeys('a\x1b[200~x\ry\x1b[201~\x1b\r')).toBe('a\uE002x\ry\uE003\uE000');
  });

  it.each([
    [40, 12, 12],
    [80, 24, 12],
    [40, 12, 60],
    [80, 50, 200],
  ])('%ix%i, %i words: a long line grows the box by its wrapped rows (up to a third of the screen, 8 at most); the cursor follows the text', async (w, h, words) => {
    const s = await scripted(w, h);
    const text = Array.from({ length: words }, (_, i) => `word${i}`).join(' ');
    await s.step(text);
    const rows = typed(s);
    const expected = Math.min(Math.ceil((text.length + 2) / w), Math.floor(h / 3), 8);
    expect(s.term.rows().at(-1)).toMatch(/^ ready │ /);
    expect(rows).toHaveLength(expected);
    // the rows shown are the text's last ones, and the cursor is right after the last character
    const all = `> ${text}`.match(new RegExp(`.{1,${w}}`, 'g')) ?? [];
    expect(rows).toEqual(all.slice(-expected));
    expect(s.term.cursor()).toEqual({ x: (text.length + 2) % w, y: h - 2 });
  });

  it('edits in place: ←/→, Home/End, Ctrl-A/E, Delete, Ctrl-U/K/W; the terminal cursor stands where the next character goes', async () => {
    const s = await scripted(60, 20);
    const input = s.term.height - 2;
    await s.step('hello world');
    await s.step('\x01'); // Ctrl-A
    expect(s.term.cursor()).toEqual({ x: 2, y: input });
    await s.step('>> \x1b[C\x1b[C\x1b[3~'); // type, → →, Delete
    expect(s.app.input.text).toBe('>> helo world');
    await s.step('\x05\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D'); // Ctrl-E, ← ×5
    expect(s.term.cursor()).toEqual({ x: 2 + '>> helo w'.length - 1, y: input });
    await s.step('\x17'); // Ctrl-W: the word before the cursor
    expect(s.app.input.text).toBe('>> world');
    await s.step('\x0b'); // Ctrl-K: to the end
    expect(s.app.input.text).toBe('>> ');
    await s.step('\x1b[D\x15'); // ←, Ctrl-U: to the start
    expect(s.app.input.text).toBe(' ');
    await s.step('\x1b[H漢\x1b[F'); // Home, a wide character, End
    expect(s.app.input.text).toBe('漢 ');
    expect(s.term.cursor()).toEqual({ x: 5, y: input });
  });

  it('Up/Down move between the lines of a multi-line draft, and browse the history from its first / last line', async () => {
    const s = await scripted(60, 20);
    await s.step('sent before\r');
    s.end(null);
    await s.step('top\x1b\rbottom');
    await s.step('\x1b[A');
    expect(s.app.input.cursor).toBe(3); // same column, first line ("top" is shorter)
    await s.step('X\x1b[B');
    expect(s.app.input.text).toBe('topX\nbottom');
    await s.step('\x1b[A\x1b[A');
    expect(s.app.input.text).toBe('sent before');
    await s.step('\x1b[B');
    expect(s.app.input.text).toBe('topX\nbottom');
  });

  it('a key [tui.keybindings] accepts is the name the terminal\'s bytes arrive as', async () => {
    const term = makeTerm(40, 12);
    const screen = new TuiScreen(term.io);
    const got: string[] = [];
    screen.onKey((_ch, full) => got.push(full));
    const sent: [string, string][] = [
      ['A', 'A'], ['M-x', '\x1bx'], ['C-M-up', '\x1b[1;7A'], ['S-f5', '\x1b[15;2~'], ['S-enter', '\x1b[13;2u'], ['M-enter', '\x1b\r'],
      ['S-tab', '\x1b[Z'], ['M-5', '\x1b5'], ['f2', '\x1bOQ'], ['C-p', '\x10'], ['M-backspace', '\x1b\x7f'], ['linefeed', '\n'], ['?', '?'],
    ];
    try {
      for (const [, bytes] of sent) {
        term.type(bytes);
        await term.settle();
      }
    } finally {
      screen.destroy();
    }
    expect(got.filter((k) => k !== 'return')).toEqual(sent.map(([k]) => canonicalKey(k)));
  });
});
