// The blessed layer: four boxes and an optional dialog, each filled with lines the pure renderers sized exactly.
import blessed from 'blessed';
import type { Layout } from './layout.js';

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
}

export type KeyHandler = (ch: string | undefined, full: string) => void;

export class TuiScreen {
  readonly screen: blessed.Widgets.Screen;
  private readonly boxes: Record<'stream' | 'sidebar' | 'input' | 'status' | 'dialog', blessed.Widgets.BoxElement>;

  constructor(io: ScreenIO) {
    this.screen = blessed.screen({
      input: io.input as never,
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
    const box = (style: Record<string, unknown> = {}): blessed.Widgets.BoxElement =>
      blessed.box({ parent: this.screen, tags: false, wrap: false, scrollable: false, style } as blessed.Widgets.BoxOptions);
    this.boxes = {
      stream: box(),
      sidebar: box({ fg: 'gray' }),
      input: box(),
      status: box({ inverse: true }),
      dialog: box({ bold: true }),
    };
    this.boxes.dialog.hide();
  }

  get cols(): number {
    return this.screen.width as number;
  }

  get rows(): number {
    return this.screen.height as number;
  }

  onKey(fn: KeyHandler): void {
    this.screen.on('keypress', (ch: string | undefined, key: { full?: string; name?: string } | undefined) => fn(ch, key?.full ?? key?.name ?? ''));
  }

  onResize(fn: () => void): void {
    this.screen.on('resize', fn);
  }

  paint(f: Frame): void {
    const place = (b: blessed.Widgets.BoxElement, r: { top: number; left: number; width: number; height: number }, lines: string[]): void => {
      if (r.width <= 0 || r.height <= 0) {
        b.hide();
        return;
      }
      b.show();
      b.top = r.top;
      b.left = r.left;
      b.width = r.width;
      b.height = r.height;
      b.setContent(lines.slice(0, r.height).join('\n'));
    };
    place(this.boxes.stream, f.layout.stream, f.stream);
    place(this.boxes.sidebar, f.layout.sidebar, f.sidebar);
    place(this.boxes.input, f.layout.input, f.input);
    place(this.boxes.status, f.layout.status, [f.status]);
    if (f.dialog) {
      const h = f.dialog.lines.length;
      const top = Math.max(0, Math.floor((f.layout.input.top - h) / 2));
      place(this.boxes.dialog, { top, left: Math.max(0, Math.floor((this.cols - f.dialog.width) / 2)), width: f.dialog.width, height: h }, f.dialog.lines);
      this.boxes.dialog.setFront();
    } else this.boxes.dialog.hide();
    this.screen.render();
  }

  destroy(): void {
    this.screen.destroy();
  }
}
