// Hard-wrapping and fitting plain text to a cell budget: line counts are taken AFTER wrapping (seeds pitfall 30).

/** Style marks inside rendered lines (Markdown bold / emphasis): zero cells wide, kept by word wrapping, turned into
 *  blessed tags by `tagged` at the screen. Model text can never carry them: `markdownLines` and `plain` drop them. */
export const MARK = { boldOn: '\x01', boldOff: '\x02', emOn: '\x03', emOff: '\x04' } as const;
export const MARKS_RE = /[\x01-\x04]/g;

/** Terminal cell width of one code point (wide East Asian / emoji = 2, combining = 0). */
export function cellWidth(cp: number): number {
  if (cp <= 4 || (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Every UTF-16 unit a BMP code point of one cell (cellWidth's complement, surrogates left out): such a string's
 *  width is its length, and it wraps by slicing (no per-character walk). */
const NARROW = /^[\x05-\u02ff\u0370-\u10ff\u1160-\u200a\u200c-\u2e7f\ua4d0-\uabff\ud7a4-\ud7ff\ue000-\uf8ff\ufb00-\ufe2f\ufe50-\ufeff\uff61-\uffdf\uffe7-\uffff]*$/;

export function strWidth(s: string): number {
  if (NARROW.test(s)) return s.length;
  let w = 0;
  for (const ch of s) w += cellWidth(ch.codePointAt(0) ?? 0);
  return w;
}

/** Tabs as two spaces, other control characters dropped (`marks`: the style marks kept): a cell count must be what
 *  the terminal shows. */
export function plain(s: string, marks = false): string {
  return s.replace(/\t/g, '  ').replace(marks ? /[\x00\x05-\x08\x0b-\x1f\x7f]/g : /[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

/** Splits on newlines and hard-wraps every line at `width` cells (`plain` first; `marks`: the style marks stay, a
 *  long styled word of an answer keeps its style). */
export function wrap(text: string, width: number, marks = false): string[] {
  const out: string[] = [];
  if (width <= 0) return out;
  const clean = plain(text, marks);
  for (const line of clean.split('\n')) {
    if (NARROW.test(line)) {
      // one cell per UTF-16 unit: cut every `width` units (an empty line stays one empty line)
      if (line.length <= width) out.push(line);
      else for (let i = 0; i < line.length; i += width) out.push(line.slice(i, i + width));
      continue;
    }
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
}

/** One line cut to `width` cells with an ellipsis when it does not fit. */
export function clip(s: string, width: number): string {
  if (width <= 0) return '';
  if (strWidth(s) <= width) return s;
  let cur = '';
  let w = 0;
  for (const ch of s) {
    const cw = cellWidth(ch.codePointAt(0) ?? 0);
    if (w + cw > width - 1) break;
    cur += ch;
    w += cw;
  }
  return `${cur}…`;
}

/** Pads with spaces to exactly `width` cells (clipping first). */
export function pad(s: string, width: number): string {
  const c = clip(s, width);
  return c + ' '.repeat(Math.max(0, width - strWidth(c)));
}

/** Like `wrap`, but breaks prose at spaces; a word longer than the width is hard-wrapped. */
export function wrapWords(text: string, width: number): string[] {
  if (width <= 0) return [];
  const out: string[] = [];
  for (const line of text.split('\n')) for (const l of wordLines(line, width)) out.push(l);
  return out;
}

/** Word-wrapped lines per width and source line: a streamed answer is re-rendered every frame, and all but its last
 *  lines are the ones the previous frame wrapped. Bounded: a map that fills up starts over. */
const wrapped = new Map<number, Map<string, readonly string[]>>();
const WRAPPED_MAX = 8192;

function wordLines(line: string, width: number): readonly string[] {
  let memo = wrapped.get(width);
  const hit = memo?.get(line);
  if (hit) return hit;
  // a line that fits is its own (only) line: every word fits after the ones before it
  const lines = strWidth(line) <= width ? [line] : breakWords(line, width);
  if (!memo || memo.size >= WRAPPED_MAX) {
    if (wrapped.size >= 8) wrapped.clear();
    memo = new Map();
    wrapped.set(width, memo);
  }
  memo.set(line, lines);
  return lines;
}

function breakWords(line: string, width: number): string[] {
  const out: string[] = [];
  // `w` is strWidth(cur), kept as words are added (widths add up: words split only after spaces)
  let cur = '';
  let w = 0;
  for (const word of line.split(/(?<= )/)) {
    const bare = word.trimEnd();
    const bw = strWidth(bare);
    if (w + bw <= width) {
      cur += word;
      w += bare.length === word.length ? bw : strWidth(word);
      continue;
    }
    if (cur.trim() !== '') out.push(cur.trimEnd());
    const pieces = wrap(word, width, true);
    for (let i = 0; i < pieces.length - 1; i++) out.push(pieces[i] as string);
    cur = pieces[pieces.length - 1] ?? '';
    w = strWidth(cur);
  }
  out.push(w > width ? cur.trimEnd() : cur);
  return out;
}

const TAGGED_RE = /[{}\x01-\x04]/;

/** A rendered line as blessed content: braces escaped (model text never becomes a tag), style marks as tags. Every
 *  line stands alone: a style still open at its end is closed, and a change resets (`{/}`) then re-opens what is on,
 *  since blessed's closing tag re-applies the other open style without turning its own off. */
export function tagged(line: string): string {
  if (!TAGGED_RE.test(line)) return line;
  let bold = false;
  let em = false;
  let out = '';
  const styled = (): string => `{/}${bold ? '{bold}' : ''}${em ? '{underline}' : ''}`;
  for (const ch of line) {
    if (ch === '{') out += '{open}';
    else if (ch === '}') out += '{close}';
    else if (ch === MARK.boldOn || ch === MARK.boldOff || ch === MARK.emOn || ch === MARK.emOff) {
      const was = `${bold}${em}`;
      if (ch === MARK.boldOn || ch === MARK.boldOff) bold = ch === MARK.boldOn;
      else em = ch === MARK.emOn;
      if (was !== `${bold}${em}`) out += styled();
    } else out += ch;
  }
  return bold || em ? `${out}{/}` : out;
}
