// Pure renderers: state → exactly-sized lines per region (the blessed layer only places them).
import type { Entry } from './conversation.js';
import { markdownLines } from './markdown.js';
import { clip, pad, strWidth, wrap } from './text.js';

export type RunState = 'idle' | 'running' | 'paused';

export interface SidebarData {
  tokens: { input: number; output: number; cached: number };
  /** Input tokens of the last call / the model's context window (the context bar), when known. */
  context: { used: number; window: number } | null;
  activity: string[];
  notes: string[];
}

export interface StatusData {
  model: string;
  tier: string;
  session: string | null;
  run: RunState;
  where: string;
  notice: string;
}

export interface DialogData {
  title: string;
  body: string;
  /** The key hint line, e.g. "y once · s session · p project · n deny". */
  keys: string;
}

const PREFIX: Record<Entry['kind'], string> = { user: '› ', text: '', tool: '', delegation: '', info: '· ', error: '! ' };

/** Rendered Markdown per entry, reused while its text and width are unchanged (streaming re-renders only the open slot). */
const rendered = new WeakMap<Entry, { text: string; width: number; lines: string[] }>();

function answerLines(e: Entry, width: number): string[] {
  const hit = rendered.get(e);
  if (hit && hit.text === e.text && hit.width === width) return hit.lines;
  const lines = markdownLines(e.text, width);
  rendered.set(e, { text: e.text, width, lines });
  return lines;
}

/** The stream's visible lines: the tail of the wrapped entries, `scroll` lines up from the bottom. */
export function streamLines(entries: readonly Entry[], width: number, height: number, scroll: number): string[] {
  const all: string[] = [];
  let lastAgent = '';
  for (const e of entries) {
    const indent = '  '.repeat(Math.min(e.depth, 4));
    if (e.kind === 'text' && e.agent !== lastAgent) all.push(pad(`${indent}${e.agent}`, width));
    lastAgent = e.kind === 'user' ? 'you' : e.agent;
    const lines = e.kind === 'text' ? answerLines(e, Math.max(1, width - indent.length)).map((l) => indent + l) : wrap(`${indent}${PREFIX[e.kind]}${e.text}`, width);
    for (const l of lines) all.push(pad(l, width));
    if (e.kind === 'user') all.push(pad('', width));
  }
  const maxScroll = Math.max(0, all.length - height);
  const s = Math.min(Math.max(0, scroll), maxScroll);
  const view = all.slice(Math.max(0, all.length - height - s), all.length - s);
  while (view.length < height) view.push(pad('', width));
  return view;
}

function bar(frac: number, width: number): string {
  const n = Math.round(Math.min(1, Math.max(0, frac)) * width);
  return '█'.repeat(n) + '░'.repeat(width - n);
}

const k = (n: number): string => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));

/** Sections share one height budget in priority order tokens > activity > notes; lower ones collapse first. */
export function sidebarLines(d: SidebarData, width: number, height: number): string[] {
  if (width <= 0 || height <= 0) return [];
  const w = width - 2; // one column of gutter each side
  const tokens = [`Tokens in ${k(d.tokens.input)} out ${k(d.tokens.output)}`, `cached ${k(d.tokens.cached)}`];
  if (d.context) tokens.push(`ctx ${bar(d.context.used / d.context.window, Math.max(1, w - 9))} ${String(Math.round((100 * d.context.used) / d.context.window)).padStart(3)}%`);
  const activity = ['Activity', ...(d.activity.length ? d.activity : ['(idle)'])];
  const notes = ['Notes', ...(d.notes.length ? d.notes.slice(-5) : ['(none)'])];
  const out: string[] = [];
  for (const section of [tokens, activity, notes]) {
    const room = height - out.length;
    if (room <= 0) break;
    const body = section.flatMap((l) => [clip(l, w)]);
    out.push(...body.slice(0, room));
    if (out.length < height) out.push('');
  }
  return out.slice(0, height).map((l) => ` ${pad(l, w)} `.slice(0, width + 1)).map((l) => pad(l, width));
}

export function statusLine(s: StatusData, width: number): string {
  const run = s.run === 'idle' ? 'ready' : s.run;
  const parts = [run, s.model || 'model ?', s.tier, s.session ? `session ${s.session}` : 'new session', s.notice, s.where === 'local' ? '' : s.where];
  return pad(` ${parts.filter((p) => p !== '').join(' │ ')}`, width);
}

export function inputLines(text: string, width: number, height: number, hint: string): string[] {
  const rule = pad('─'.repeat(width), width);
  const body = text === '' ? [pad(clip(hint, width), width)] : wrap(`> ${text}`, width).map((l) => pad(l, width));
  const visible = body.slice(Math.max(0, body.length - (height - 1)));
  while (visible.length < height - 1) visible.push(pad('', width));
  return [rule, ...visible];
}

/** A centered dialog's box: width and lines (border included) fitted to the screen. */
export function dialogBox(d: DialogData, cols: number, rows: number): { width: number; lines: string[] } {
  const width = Math.max(10, Math.min(cols - 2, 72));
  const inner = width - 4;
  const body = wrap(d.body, inner);
  const maxBody = Math.max(1, rows - 6);
  const shown = body.length > maxBody ? [...body.slice(0, maxBody - 1), '…'] : body;
  const t = clip(` ${d.title} `, width - 3);
  const top = `┌─${t}${'─'.repeat(width - 3 - strWidth(t))}┐`;
  const row = (l: string): string => `│ ${pad(l, inner)} │`;
  const lines = [top, ...shown.map(row), row(''), ...wrap(d.keys, inner).slice(0, 2).map(row), `└${'─'.repeat(width - 2)}┘`];
  return { width, lines: lines.slice(0, Math.max(3, rows - 2)) };
}
