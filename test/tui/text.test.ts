// text.ts keeps its fast paths (ASCII-range widths, one running width per wrapped line) exactly equal to the
// per-code-point definitions below, on random text mixing wide, zero-width, surrogate, control and space characters.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../seeded.js';
import { cellWidth, clip, pad, strWidth, wrap, wrapWords } from '../../bin/tui/text.js';

/** The definitions: every width is the sum of the code points' cells; wrapWords re-measures the line per word. */
const ref = {
  strWidth(s: string): number {
    let w = 0;
    for (const ch of s) w += cellWidth(ch.codePointAt(0) ?? 0);
    return w;
  },
  wrap(text: string, width: number, marks = false): string[] {
    const out: string[] = [];
    if (width <= 0) return out;
    const clean = text.replace(/\t/g, '  ').replace(marks ? /[\x00\x05-\x08\x0b-\x1f\x7f]/g : /[\x00-\x08\x0b-\x1f\x7f]/g, '');
    for (const line of clean.split('\n')) {
      let cur = '';
      let w = 0;
      for (const ch of line) {
        const cw = cellWidth(ch.codePointAt(0) ?? 0);
        if (w + cw > width) {
          out.push(cur);
          cur = '';
          w = 0;
        }
        cur += ch;
        w += cw;
      }
      out.push(cur);
    }
    return out;
  },
  wrapWords(text: string, width: number): string[] {
    if (width <= 0) return [];
    const out: string[] = [];
    for (const line of text.split('\n')) {
      let cur = '';
      for (const word of line.split(/(?<= )/)) {
        if (ref.strWidth(cur + word.trimEnd()) <= width) {
          cur += word;
          continue;
        }
        if (cur.trim() !== '') out.push(cur.trimEnd());
        const pieces = ref.wrap(word, width, true); // a styled word of an answer keeps its (zero-width) marks
        out.push(...pieces.slice(0, -1));
        cur = pieces[pieces.length - 1] ?? '';
      }
      out.push(ref.strWidth(cur) > width ? cur.trimEnd() : cur);
    }
    return out;
  },
};

const ALPHABET = ['a', 'b', 'word', 'extraordinarilylongword', ' ', ' ', '  ', '\n', '\t', '雙', '😀', 'e\u0301', '\u200b', '\x01', '\x7f', '\u3000', '\u00a0', '\ud800', 'é', '─'];

function* texts(n: number): Generator<string> {
  const next = mulberry32(7);
  const rnd = (k: number): number => next() % k;
  for (let i = 0; i < n; i++) yield Array.from({ length: rnd(40) }, () => ALPHABET[rnd(ALPHABET.length)]).join('');
}

describe('text fitting', () => {
  it('strWidth, wrap, wrapWords, clip and pad equal their per-code-point definitions', () => {
    // twice over the same texts: the second pass reads wrapWords' memo of wrapped lines
    for (const t of [...texts(600), ...texts(600)]) {
      expect([t, strWidth(t)]).toEqual([t, ref.strWidth(t)]);
      for (const w of [1, 2, 3, 5, 8, 13, 40]) {
        expect([t, w, wrap(t, w)]).toEqual([t, w, ref.wrap(t, w)]);
        expect([t, w, wrapWords(t, w)]).toEqual([t, w, ref.wrapWords(t, w)]);
        const line = t.replace(/\n/g, ' ');
        expect(ref.strWidth(pad(line, w))).toBe(w);
        expect(ref.strWidth(clip(line, w))).toBeLessThanOrEqual(w);
      }
    }
  });

  it('every BMP code point measures and wraps as its cells say, alone and among one-cell letters', () => {
    for (let cp = 1; cp <= 0xffff; cp++) {
      const ch = String.fromCharCode(cp);
      const t = `ab${ch}cd`;
      if (strWidth(ch) !== ref.strWidth(ch) || strWidth(t) !== ref.strWidth(t)) expect([cp, strWidth(t)]).toEqual([cp, ref.strWidth(t)]);
      if (cp % 7 === 0) expect([cp, wrap(t, 2)]).toEqual([cp, ref.wrap(t, 2)]);
    }
  });
});
