// The input box's buffer: multi-line text with a cursor (moved and edited with the keys a shell's line editor
// has: ←/→, Home/End, Ctrl-A/E, Ctrl-U/K/W, Delete) and an Up/Down history of sent entries.

/** A word for Ctrl-W / Alt+Backspace: a run of non-space characters (and the spaces before the cursor). */
const WORD_BACK = /\S*\s*$/u;

export class InputBuffer {
  text = '';
  /** UTF-16 index of the cursor, always on a code point boundary (0..text.length). */
  cursor = 0;
  private readonly history: string[] = [];
  /** Index into history while browsing; history.length = the live draft. */
  private at = 0;
  private draft = '';

  private set(text: string, cursor = text.length): void {
    this.text = text;
    this.cursor = cursor;
  }

  insert(s: string): void {
    this.set(this.text.slice(0, this.cursor) + s + this.text.slice(this.cursor), this.cursor + s.length);
  }

  /** Deletes the code point before the cursor. */
  backspace(): void {
    if (this.cursor === 0) return;
    const before = [...this.text.slice(0, this.cursor)].slice(0, -1).join('');
    this.set(before + this.text.slice(this.cursor), before.length);
  }

  /** Deletes the code point under the cursor. */
  deleteForward(): void {
    const after = [...this.text.slice(this.cursor)];
    if (after.length === 0) return;
    this.set(this.text.slice(0, this.cursor) + after.slice(1).join(''), this.cursor);
  }

  left(): void {
    if (this.cursor === 0) return;
    const pair = this.cursor >= 2 && isSurrogate(this.text.charCodeAt(this.cursor - 1), 0xdc00) && isSurrogate(this.text.charCodeAt(this.cursor - 2), 0xd800);
    this.cursor -= pair ? 2 : 1;
  }

  right(): void {
    if (this.cursor < this.text.length) this.cursor += (this.text.codePointAt(this.cursor) ?? 0) > 0xffff ? 2 : 1;
  }

  /** Where the line holding `at` starts, and where it ends (its line break, or the text's end). */
  private lineStart(at = this.cursor): number {
    return this.text.lastIndexOf('\n', at - 1) + 1;
  }

  private lineEnd(at = this.cursor): number {
    const nl = this.text.indexOf('\n', at);
    return nl === -1 ? this.text.length : nl;
  }

  /** Start / end of the cursor's line (Home, End, Ctrl-A, Ctrl-E). */
  home(): void {
    this.cursor = this.lineStart();
  }

  end(): void {
    this.cursor = this.lineEnd();
  }

  /** Ctrl-U: deletes from the line's start to the cursor; Ctrl-K: from the cursor to the line's end. */
  killBefore(): void {
    const start = this.lineStart();
    this.set(this.text.slice(0, start) + this.text.slice(this.cursor), start);
  }

  killAfter(): void {
    this.set(this.text.slice(0, this.cursor) + this.text.slice(this.lineEnd()), this.cursor);
  }

  /** Ctrl-W / Alt+Backspace: deletes the word before the cursor. */
  killWord(): void {
    const before = this.text.slice(0, this.cursor).replace(WORD_BACK, '');
    this.set(before + this.text.slice(this.cursor), before.length);
  }

  /** Whether the cursor is on the text's first / last line (Up / Down then browse the history). */
  get onFirstLine(): boolean {
    return !this.text.slice(0, this.cursor).includes('\n');
  }

  get onLastLine(): boolean {
    return !this.text.slice(this.cursor).includes('\n');
  }

  /** Up / Down inside multi-line text: the same column of the line above / below (clamped to its length). */
  lineUp(): void {
    const start = this.lineStart();
    if (start === 0) return;
    this.cursor = Math.min(this.lineStart(start - 1) + (this.cursor - start), start - 1);
  }

  lineDown(): void {
    const end = this.lineEnd();
    if (end === this.text.length) return;
    this.cursor = Math.min(end + 1 + (this.cursor - this.lineStart()), this.lineEnd(end + 1));
  }

  /** Takes the buffer (Enter): remembered in history unless empty, equal to the last entry or not to be kept. */
  take(remember = true): string {
    const t = this.text;
    if (remember && t.trim() !== '' && this.history[this.history.length - 1] !== t) this.history.push(t);
    this.set('');
    this.at = this.history.length;
    this.draft = '';
    return t;
  }

  prev(): void {
    if (this.at === this.history.length) this.draft = this.text;
    if (this.at > 0) this.at--;
    this.set(this.history[this.at] ?? this.text);
  }

  next(): void {
    if (this.at >= this.history.length) return;
    this.at++;
    this.set(this.at === this.history.length ? this.draft : (this.history[this.at] ?? ''));
  }
}

/** `base` 0xd800 = a high surrogate, 0xdc00 = a low one. */
function isSurrogate(c: number, base: number): boolean {
  return c >= base && c <= base + 0x3ff;
}
