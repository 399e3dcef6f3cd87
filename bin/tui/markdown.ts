// Markdown answers → plain terminal lines no wider than `width` (marked's lexer tokenizes; text.ts wraps).
import { Lexer, type Token, type Tokens } from 'marked';
import { clip, strWidth, wrap, wrapWords } from './text.js';

/** Inline tokens → one string: emphasis markers dropped, code keeps its backticks, links read `text (url)`. */
function inline(tokens: readonly Token[] | undefined, fallback = ''): string {
  if (!tokens) return fallback;
  return tokens
    .map((t): string => {
      switch (t.type) {
        case 'strong':
        case 'em':
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
        out.push(...wrapWords(text, width));
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
  const lines = blocks(new Lexer().lex(text), width);
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  // markers and gutters of deep nesting can outgrow a tiny width: clip rather than overflow
  return lines.map((l) => (strWidth(l) > width ? clip(l, width) : l));
}
