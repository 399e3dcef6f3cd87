// The input box's buffer: multi-line text, a cursor at the end, and an Up/Down history of sent entries.

export class InputBuffer {
  text = '';
  private readonly history: string[] = [];
  /** Index into history while browsing; history.length = the live draft. */
  private at = 0;
  private draft = '';

  insert(s: string): void {
    this.text += s;
  }

  backspace(): void {
    this.text = [...this.text].slice(0, -1).join('');
  }

  /** Takes the buffer (Enter): remembered in history unless empty or equal to the last entry. */
  take(): string {
    const t = this.text;
    if (t.trim() !== '' && this.history[this.history.length - 1] !== t) this.history.push(t);
    this.text = '';
    this.at = this.history.length;
    this.draft = '';
    return t;
  }

  prev(): void {
    if (this.at === this.history.length) this.draft = this.text;
    if (this.at > 0) this.at--;
    this.text = this.history[this.at] ?? this.text;
  }

  next(): void {
    if (this.at >= this.history.length) return;
    this.at++;
    this.text = this.at === this.history.length ? this.draft : (this.history[this.at] ?? '');
  }
}
