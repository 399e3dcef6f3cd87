// An agent's streamed text without its <thought> block: the plan goes to the sidebar's plan panel (the
// `thinking` event), the conversation shows what the agent says. Streaming is filtered chunk by chunk (O(chunk),
// a flood of chunks must not re-scan the whole answer), holding back a tail that may be the start of a tag.

const OPEN = '<thought>';
const CLOSE = '</thought>';

/** The length of the longest suffix of `s` that is a proper prefix of `tag` (a tag split across chunks). */
function partialTag(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) if (tag.startsWith(s.slice(s.length - n))) return n;
  return 0;
}

export class ThoughtFilter {
  /** The visible text so far. */
  text = '';
  private inThought = false;
  private held = '';

  /** Feeds one chunk; returns whether the visible text changed. */
  push(chunk: string): boolean {
    let s = this.held + chunk;
    this.held = '';
    const before = this.text;
    while (s !== '') {
      const tag = this.inThought ? CLOSE : OPEN;
      const at = s.indexOf(tag);
      if (at >= 0) {
        if (!this.inThought) this.text += s.slice(0, at);
        this.inThought = !this.inThought;
        s = s.slice(at + tag.length);
        // the text after a block usually starts with the line break that ended it
        if (!this.inThought && this.text === '') s = s.replace(/^\s+/, '');
        continue;
      }
      const hold = partialTag(s, tag);
      if (!this.inThought) this.text += s.slice(0, s.length - hold);
      this.held = s.slice(s.length - hold);
      s = '';
    }
    return this.text !== before;
  }

  /** The visible text once the reply is complete: a held tail that never became a tag is text after all. */
  end(): string {
    return this.inThought ? this.text : this.text + this.held;
  }
}

/** The whole reply without its thought block (a final `ai_response`); an unclosed block hides what follows it. */
export function withoutThought(text: string): string {
  const f = new ThoughtFilter();
  f.push(text);
  return f.end().replace(/\s+$/, '');
}
