// Render harness: blessed writes into a real terminal emulator (@xterm/headless); tests read its cells.
import { PassThrough, Writable } from 'node:stream';
import { createRequire } from 'node:module';
import type * as XtermNs from '@xterm/headless';

// the package is CommonJS: its named export is reachable through require
const xterm = createRequire(import.meta.url)('@xterm/headless') as typeof XtermNs;
import type { ScreenIO } from '../../bin/tui/screen.js';

export interface Term {
  io: ScreenIO;
  /** Types raw bytes as a terminal would send them ('\r' = Enter, '\x03' = Ctrl-C, '\x1b' = Esc). */
  type(bytes: string): void;
  /** Waits until the emulator has parsed everything written so far. */
  settle(): Promise<void>;
  /** Row y as text, trailing spaces kept (exactly `cols` cells). */
  row(y: number): string;
  rows(): string[];
  /** Row y's cell styles, one character per cell: `b` bold, `u` underline, `B` both, `.` neither. */
  styles(y: number): string;
  screenText(): string;
  /** Where the terminal's cursor is (cell column, row). */
  cursor(): { x: number; y: number };
  /** Resizes the terminal as a window resize does (the emulator, then the output's size and its 'resize' event). */
  resize(cols: number, rows: number): void;
  cols: number;
  height: number;
}

export function makeTerm(cols: number, rows: number): Term {
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  let pending = Promise.resolve();
  const output = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const data = chunk.toString('utf8');
      pending = pending.then(() => new Promise<void>((r) => term.write(data, r)));
      cb();
    },
  });
  Object.assign(output, { columns: cols, rows, isTTY: true });
  const input = new PassThrough();
  Object.assign(input, { isTTY: true, setRawMode: () => input });
  const row = (y: number): string => term.buffer.active.getLine(y)?.translateToString(false, 0, term.cols) ?? '';
  const t: Term = {
    io: { input, output },
    type: (bytes) => void input.write(bytes),
    settle: async () => {
      await new Promise((r) => setImmediate(r));
      await pending;
    },
    row,
    rows: () => Array.from({ length: t.height }, (_, y) => row(y)),
    styles: (y) => {
      const line = term.buffer.active.getLine(y);
      let out = '';
      for (let x = 0; x < term.cols; x++) {
        const c = line?.getCell(x);
        const [b, u] = [c?.isBold() ? 1 : 0, c?.isUnderline() ? 1 : 0];
        out += b && u ? 'B' : b ? 'b' : u ? 'u' : '.';
      }
      return out;
    },
    cursor: () => ({ x: term.buffer.active.cursorX, y: term.buffer.active.cursorY }),
    screenText: () => Array.from({ length: t.height }, (_, y) => row(y).trimEnd()).join('\n'),
    resize: (c, r) => {
      pending = pending.then(() => term.resize(c, r));
      Object.assign(output, { columns: c, rows: r });
      Object.assign(t, { cols: c, height: r });
      output.emit('resize');
    },
    cols,
    height: rows,
  };
  return t;
}
