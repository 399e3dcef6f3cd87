// The blessed layer: five boxes (the input region as its rule and its lines) and an optional dialog, each filled with
// lines the pure renderers sized exactly; a box whose place and lines did not change is not drawn again.
import blessed from 'blessed';
import { KEY_CHARS, PASTE_OFF, PASTE_ON, translatedInput } from './key-input.js';
import type { Layout } from './layout.js';
import { tagged } from './text.js';

export interface ScreenIO {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

export interface Frame {
  layout: Layout;
  stream: string[];
  sidebar: string[];
  input: string[];
  status: string;
  dialog: { width: number; lines: string[] } | null;
  /** Where the terminal's cursor goes (the input box), or null to hide it (a dialog that takes keys itself). */
  cursor: { x: number; y: number } | null;
}

export type KeyHandler = (ch: string | undefined, full: string) => void;

type BoxName = 'stream' | 'sidebar' | 'rule' | 'input' | 'status' | 'dialog';
type Rect = { top: number; left: number; width: number; height: number };

export class TuiScreen {
  readonly screen: blessed.Widgets.Screen;
  private readonly boxes: Record<BoxName, blessed.Widgets.BoxElement>;
  /** What each box was last given (place, lines): an unchanged box is neither re-set nor drawn again. */
  private readonly shown = new Map<BoxName, { rect: string; lines: readonly string[] }>();
  /** Boxes whose text changed since the last render: only they draw their cells again... */
  private readonly stale = new Set<BoxName>();
  /** ...unless every box must: the first frame, a box moved, resized, hid or showed (blessed clears the cells it
   *  covered), or blessed reallocated its cell buffer (a terminal resize). */
  private all = true;
  private cells: unknown = null;
  private cursorAt: string | null = null;
  private readonly output: NodeJS.WritableStream;
  private readonly input: ReturnType<typeof translatedInput>;

  constructor(io: ScreenIO) {
    this.input = translatedInput(io.input);
    this.screen = blessed.screen({
      input: this.input.stream as never,
      output: io.output as never,
      terminal: 'xterm-256color',
      fullUnicode: true,
      forceUnicode: true, // a terminal without LANG still gets UTF-8 (the rules, the bars)
      smartCSR: true,
      warnings: false,
      autoPadding: false,
      dockBorders: false,
      title: 'yagent',
    });
    // UTF-8 line drawing, never the ACS charset: tmux/capture-pane (and some terminals) show ACS as 'qqq'
    (this.screen as unknown as { tput: { brokenACS: boolean } }).tput.brokenACS = true;
    // only the stream holds blessed tags (Markdown bold / emphasis from `tagged`, every brace escaped there)
    const box = (name: BoxName, style: Record<string, unknown> = {}): blessed.Widgets.BoxElement => {
      const b = blessed.box({ parent: this.screen, tags: name === 'stream', wrap: false, scrollable: false, style } as blessed.Widgets.BoxOptions);
      // the screen's cells still hold what an unchanged box drew last: skip its draw (the dialog, in front, draws
      // again whenever anything under it did)
      const el = b as unknown as { render(): unknown; lpos: unknown };
      const draw = el.render.bind(b);
      el.render = () => (this.all || this.stale.has(name) || (name === 'dialog' && this.stale.size > 0) ? draw() : el.lpos);
      return b;
    };
    this.boxes = {
      stream: box('stream'),
      sidebar: box('sidebar', { fg: 'gray' }),
      // the input region's first line (the rule) has a box of its own: a keystroke redraws the typed lines only
      rule: box('rule'),
      input: box('input'),
      status: box('status', { inverse: true }),
      dialog: box('dialog', { bold: true }),
    };
    this.boxes.dialog.hide();
    // bracketed paste: a pasted text's line breaks must not send it (`key-input.ts` frames it)
    this.output = io.output;
    this.output.write(PASTE_ON);
    this.screen.on('prerender', () => {
      const lines = (this.screen as unknown as { lines: unknown }).lines;
      if (lines !== this.cells) this.all = true;
      this.cells = lines;
    });
    this.screen.on('render', () => {
      this.all = false;
      this.stale.clear();
    });
  }

  get cols(): number {
    return this.screen.width as number;
  }

  get rows(): number {
    return this.screen.height as number;
  }

  onKey(fn: KeyHandler): void {
    this.screen.on('keypress', (ch: string | undefined, key: { full?: string; name?: string } | undefined) => {
      const translated = ch === undefined ? undefined : KEY_CHARS[ch];
      fn(translated === undefined ? ch : undefined, translated ?? key?.full ?? key?.name ?? '');
    });
  }

  onResize(fn: () => void): void {
    this.screen.on('resize', fn);
  }

  paint(f: Frame): void {
    this.place('stream', f.layout.stream, f.stream);
    this.place('sidebar', f.layout.sidebar, f.sidebar);
    const { top, left, width, height } = f.layout.input;
    this.place('rule', { top, left, width, height: Math.min(1, height) }, f.input.slice(0, 1));
    this.place('input', { top: top + 1, left, width, height: height - 1 }, f.input.slice(1));
    this.place('status', f.layout.status, [f.status]);
    if (f.dialog) {
      const h = f.dialog.lines.length;
      const top = Math.max(0, Math.floor((f.layout.input.top - h) / 2));
      this.place('dialog', { top, left: Math.max(0, Math.floor((this.cols - f.dialog.width) / 2)), width: f.dialog.width, height: h }, f.dialog.lines);
    } else this.hide('dialog');
    this.screen.render();
    this.placeCursor(f.cursor);
    // the frame is whole: send it now (blessed buffers its output until the next setImmediate, an event-loop turn
    // that a busy loop — a parallel stream's events — stretches; first token → screen pays it)
    (this.screen.program as blessed.BlessedProgram & { flush(): void }).flush();
  }

  /** blessed saves and restores the cursor around each draw: it stays where it was put until it moves. */
  private placeCursor(c: Frame['cursor']): void {
    const p = this.screen.program as blessed.BlessedProgram & { cursorHidden: boolean };
    if (c === null) {
      if (!p.cursorHidden) p.hideCursor();
      this.cursorAt = null;
      return;
    }
    const at = `${c.y},${c.x}`;
    if (at !== this.cursorAt) p.cup(c.y, c.x);
    if (p.cursorHidden) p.showCursor();
    this.cursorAt = at;
  }

  private hide(name: BoxName): void {
    if (this.boxes[name].hidden) return;
    this.boxes[name].hide();
    this.all = true;
  }

  private place(name: BoxName, r: Rect, lines: string[]): void {
    const b = this.boxes[name];
    if (r.width <= 0 || r.height <= 0) return this.hide(name);
    const last = this.shown.get(name);
    const rect = `${r.top},${r.left},${r.width},${r.height}`;
    if (b.hidden || last?.rect !== rect) {
      b.show();
      b.top = r.top;
      b.left = r.left;
      b.width = r.width;
      b.height = r.height;
      this.all = true;
      if (name === 'dialog') b.setFront();
    }
    const shown = lines.length > r.height ? lines.slice(0, r.height) : lines;
    this.shown.set(name, { rect, lines: shown });
    if (last && same(last.lines, shown)) return;
    // no clearing first (noClear): the box draws every cell of its region anyway (no transparency, no padding; a
    // stream line's tags take no cells), so unchanged cells, the input's rule say, stay clean and are not sent again
    const text = name === 'stream' ? shown.map(tagged).join('\n') : shown.join('\n');
    (b.setContent as (text: string, noClear: boolean) => void).call(b, text, true);
    this.stale.add(name);
  }

  destroy(): void {
    this.output.write(PASTE_OFF);
    this.screen.destroy();
    this.input.close();
  }
}

/** Line by line (the renderers give a region's lines as a new array each frame, or the same array when unchanged). */
function same(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
