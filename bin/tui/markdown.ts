// Markdown answers → terminal lines no wider than `width` (marked's lexer tokenizes; text.ts wraps). Bold and
// emphasis are zero-width style marks (`MARK`) the screen turns into blessed tags; everything else is plain text.
import { Lexer, type Token, type Tokens } from 'marked';
import { clip, MARK, MARKS_RE, strWidth, wrap, wrapWords } from './text.js';

/** Inline tokens → one string: `**bold**` and `*em*` / `_em_` between style marks (their markers dropped), code
 *  keeps its backticks (and no style), links read `text (url)`. */
function inline(tokens: readonly Token[] | undefined, fallback = ''): string {
  if (!tokens) return fallback;
  return tokens
    .map((t): string => {
      switch (t.type) {
        case 'strong':
          return `${MARK.boldOn}${inline(t.tokens, t.text)}${MARK.boldOff}`;
        case 'em':
          return `${MARK.emOn}${inline(t.tokens, t.text)}${MARK.emOff}`;
        case 'del':
          return inline(t.tokens, t.text);
        case 'codespan':
          return `\`${t.text}\``;
        case 'br':
          return '\n';
        case 'link': {
          const label = inline(t.tokens, t.text);
          return label === t.href ? t.href : `${label} (${t.href})`;
        }
        case 'image':
          return `[${t.text}] (${t.href})`;
        case 'text':
        case 'escape':
          return 'tokens' in t && t.tokens ? inline(t.tokens, t.text) : t.text;
        default:
          return t.raw;
      }
    })
    .join('');
}

/** Wraps `text` with `first` before its first line and `rest` (same width) before the others. */
function hang(text: string, width: number, first: string, rest: string): string[] {
  const lines = wrap(text, Math.max(1, width - strWidth(first)));
  return lines.map((l, i) => `${i === 0 ? first : rest}${l}`);
}

function blocks(tokens: readonly Token[], width: number): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case 'space':
        break;
      case 'heading': {
        const text = inline(t.tokens, t.text);
        out.push(...wrapWords(`${MARK.boldOn}${text}${MARK.boldOff}`, width));
        // h1/h2 are underlined so they stand out without colours
        if (t.depth <= 2) out.push((t.depth === 1 ? '═' : '─').repeat(Math.min(width, Math.max(1, strWidth(text)))));
        break;
      }
      case 'code':
        // verbatim, framed by a gutter; long lines hard-wrap inside the frame
        for (const l of t.text.split('\n')) out.push(...hang(l, width, '│ ', '│ '));
        break;
      case 'list':
        out.push(...list(t as Tokens.List, width));
        break;
      case 'blockquote':
        out.push(...blocks(t.tokens ?? [], Math.max(1, width - 2)).map((l) => `▌ ${l}`));
        break;
      case 'hr':
        out.push('─'.repeat(width));
        break;
      case 'paragraph':
      case 'text':
        out.push(...wrapWords(inline(t.tokens, t.text), width));
        break;
      case 'table': {
        const tb = t as Tokens.Table;
        const row = (cells: Tokens.TableCell[]): string => cells.map((c) => inline(c.tokens, c.text)).join(' │ ');
        out.push(...wrapWords(row(tb.header), width), ...tb.rows.flatMap((r) => wrapWords(row(r), width)));
        break;
      }
      default:
        out.push(...wrap(t.raw.replace(/\n+$/, ''), width));
    }
    if (t.type !== 'space' && t.type !== 'text') out.push('');
  }
  return out;
}

function list(l: Tokens.List, width: number): string[] {
  const out: string[] = [];
  const start = typeof l.start === 'number' ? l.start : 1;
  l.items.forEach((item, i) => {
    const marker = l.ordered ? `${start + i}. ` : '• ';
    const inner = Math.max(1, width - strWidth(marker));
    const body = blocks(item.tokens, inner).filter((x) => x !== ''); // tight: no blank lines inside an item
    const shown = body.length ? body : [''];
    shown.forEach((b, j) => out.push(`${j === 0 ? marker : ' '.repeat(strWidth(marker))}${b}`));
  });
  return out;
}

/** The rendered lines of a Markdown text; every line is at most `width` cells. */
export function markdownLines(text: string, width: number): string[] {
  if (width <= 0) return [];
  // the model's text never carries a style mark of its own
  const lines = carryStyles(blocks(new Lexer().lex(text.replace(MARKS_RE, '')), width));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  // markers and gutters of deep nesting can outgrow a tiny width: clip rather than overflow
  return lines.map((l) => (strWidth(l) > width ? clip(l, width) : l));
}

/** Each line stands alone at the screen (`tagged` closes what is open at its end): a bold or emphasised span wrapped
 *  onto the next lines is opened again there, after their indentation. */
function carryStyles(lines: string[]): string[] {
  let bold = false;
  let em = false;
  return lines.map((l) => {
    const open = `${bold ? MARK.boldOn : ''}${em ? MARK.emOn : ''}`;
    for (const ch of l) {
      if (ch === MARK.boldOn || ch === MARK.boldOff) bold = ch === MARK.boldOn;
      else if (ch === MARK.emOn || ch === MARK.emOff) em = ch === MARK.emOn;
    }
    if (open === '' || l === '') return l;
    const indent = /^ */.exec(l)?.[0].length ?? 0;
    return `${l.slice(0, indent)}${open}${l.slice(indent)}`;
  });
}
