// Pure renderers: state → exactly-sized lines per region (the blessed layer only places them).
import type { Entry } from './conversation.js';
import { markdownLines } from './markdown.js';
import { clip, pad, plain, strWidth, wrap, wrapWords } from './text.js';

export type RunState = 'idle' | 'running' | 'paused';

export interface SidebarData {
  tokens: { input: number; output: number; cached: number };
  /** Estimated USD so far (`unpriced`: some model has no price, its tokens are not in the figure). */
  cost: { usd: number; unpriced: boolean } | null;
  /** Input tokens of the Director's last call / its context window (the context bar), when known. */
  context: { used: number; window: number } | null;
  /** Context compressions so far and the latest one (tier, tokens before → after). */
  compressed: { count: number; agent: string; tier: number; before: number; after: number } | null;
  /** The latest plan (thinklink) of any agent: its items, or the current step. */
  plan: { agent: string; lines: string[] } | null;
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
  /** Lines the stream is scrolled up (0 = following the newest). */
  scrolled: number;
  /** A model call waiting for its server ("director waiting 15 s for p"), or ''. */
  waiting?: string;
}

export interface DialogData {
  title: string;
  body: string;
  /** The key hint line, e.g. "y once · s session · p project · n deny". */
  keys: string;
  /** The body's first shown line (a long preview scrolls; clamped so the last page stays full). */
  scroll?: number;
  /** A body line that must be in view (a picker's selected row): the window moves to it. */
  focus?: number;
}

const PREFIX: Record<Entry['kind'], string> = { user: '› ', queued: '⧗ queued: ', text: '', tool: '', delegation: '', info: '· ', error: '! ' };

/** An entry's lines (unpadded; its agent header and a user turn's spacer included), reused while its text, the
 *  width and whether it opens with a header are unchanged: a frame re-renders only the entries whose text grew. */
const rendered = new WeakMap<Entry, { text: string; width: number; head: boolean; lines: string[] }>();

/** The last frame's `streamLines` / `sidebarLines` kept lines drawn before (a first token's frame): a frame must
 *  follow to show what changed meanwhile. */
let deferred = false;

export function entryLines(e: Entry, prev: Entry | undefined, width: number, keep = false): string[] {
  // an agent header opens where the slot changes (two parallel delegations of one agent are two slots)
  const head = e.kind === 'text' && e.text !== '' && e.slot !== prev?.slot;
  const hit = rendered.get(e);
  if (hit && hit.width === width && hit.head === head) {
    if (hit.text === e.text) return hit.lines;
    // a grown entry kept as it was drawn (a first token's frame): the next frame renders it
    if (keep) return (deferred = true), hit.lines;
  }
  const indent = '  '.repeat(Math.min(e.depth, 4));
  const inner = Math.max(1, width - indent.length);
  const lines = head ? [`${indent}${e.agent}`] : [];
  if (e.kind === 'text') for (const l of markdownLines(e.text, inner)) lines.push(indent + l);
  // prose wraps at spaces (a long word or path is cut), continuation lines keep the indent
  else for (const l of wrapWords(plain(`${PREFIX[e.kind]}${e.text}`), inner)) lines.push(indent + l);
  if (e.kind === 'user' || e.kind === 'queued') lines.push('');
  rendered.set(e, { text: e.text, width, head, lines });
  return lines;
}

/** The last window: the entries' line arrays it was cut from (never mutated once made) and the window's size (the
 *  width matters on its own for an empty stream, which has no arrays). */
let lastWindow: { parts: string[][]; width: number; height: number; scroll: number; view: string[]; scrolled: number } | null = null;

/** The stream's visible lines: the tail of the wrapped entries, `scroll` lines up from the bottom. Only the entries
 *  that reach into the window are rendered (walking back from the newest), and only the visible lines are padded;
 *  a window cut from the same line arrays at the same size is the same array as last time. `only` set (a first
 *  token's frame): only that entry is rendered afresh, the others that grew keep the lines drawn last time
 *  (`streamDeferred` says so; a frame slot renders them) — a parallel stream's re-render is not on its path. */
export function streamLines(entries: readonly Entry[], width: number, height: number, scroll: number, only: Entry | null = null): string[] {
  const want = height + Math.max(0, scroll);
  const parts: string[][] = [];
  let n = 0;
  deferred = false;
  for (let i = entries.length - 1; i >= 0 && n < want; i--) {
    const e = entries[i] as Entry;
    const lines = entryLines(e, entries[i - 1], width, only !== null && e !== only);
    parts.push(lines);
    n += lines.length;
  }
  const last = lastWindow;
  if (last && last.width === width && last.height === height && last.scroll === scroll && last.parts.length === parts.length && last.parts.every((p, i) => p === parts[i])) return last.view;
  // the last `want` lines (or all of them): the same window as over the whole stream, since s <= want - height
  const all: string[] = [];
  for (let i = parts.length - 1, skip = Math.max(0, n - want); i >= 0; i--) {
    const lines = parts[i] as string[];
    const from = Math.min(lines.length, skip);
    skip -= from;
    for (let j = from; j < lines.length; j++) all.push(lines[j] as string);
  }
  // fewer lines than wanted = the top was reached: the scroll stops there
  const maxScroll = Math.max(0, all.length - height);
  const s = Math.min(Math.max(0, scroll), maxScroll);
  const view = all.slice(Math.max(0, all.length - height - s), all.length - s).map((l) => pad(l, width));
  while (view.length < height) view.push(pad('', width));
  lastWindow = { parts, width, height, scroll, view, scrolled: s };
  return view;
}

/** The last frame left an entry or the sidebar as drawn before (a first token's frame): the next one renders it. */
export function streamDeferred(): boolean {
  return deferred;
}

/** How far up the last window really is (`scroll` clamped at the top of the stream). */
export function streamScrolled(): number {
  return lastWindow?.scrolled ?? 0;
}

function bar(frac: number, width: number): string {
  const n = Math.round(Math.min(1, Math.max(0, frac)) * width);
  return '█'.repeat(n) + '░'.repeat(width - n);
}

const k = (n: number): string => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));

/** The last sidebar and what it was made from (the data it shows and its size). */
let lastSidebar: { key: string; lines: string[] } | null = null;

/** Sections share one height budget in priority order tokens > activity > notes; lower ones collapse first.
 *  The same data at the same size gives the same array as last time (a keystroke does not re-pad the column). */
export function sidebarLines(d: SidebarData, width: number, height: number, keep = false): string[] {
  if (width <= 0 || height <= 0) return [];
  // a first token's frame: the column stays as drawn (`deferred`), its figures come with the next frame
  if (keep && lastSidebar?.key.startsWith(`${width} ${height} `)) return (deferred = true), lastSidebar.lines;
  const c = d.context;
  const key = `${width} ${height} ${d.tokens.input} ${d.tokens.output} ${d.tokens.cached} ${c ? `${c.used}/${c.window}` : '-'} ${JSON.stringify([d.cost, d.compressed, d.plan, d.activity, d.notes.slice(-5)])}`;
  if (lastSidebar?.key === key) return lastSidebar.lines;
  const lines = sidebarOf(d, width, height);
  lastSidebar = { key, lines };
  return lines;
}

function sidebarOf(d: SidebarData, width: number, height: number): string[] {
  const w = width - 2; // one column of gutter each side
  const tokens = [`Tokens in ${k(d.tokens.input)} out ${k(d.tokens.output)}`, `cached ${k(d.tokens.cached)}${costText(d.cost)}`];
  if (d.context) tokens.push(`ctx ${bar(d.context.used / d.context.window, Math.max(1, w - 9))} ${String(Math.round((100 * d.context.used) / d.context.window)).padStart(3)}%`);
  const z = d.compressed;
  if (z) tokens.push(`compressed ${z.count}× ${k(z.before)}→${k(z.after)}`);
  const activity = ['Activity', ...(d.activity.length ? d.activity : ['(idle)'])];
  const plan = d.plan ? [`Plan · ${d.plan.agent}`, ...(d.plan.lines.length ? d.plan.lines : ['(no items)'])] : [];
  const notes = ['Notes', ...(d.notes.length ? d.notes.slice(-5) : ['(none)'])];
  const out: string[] = [];
  // one height budget, in priority order: the figures, what runs, the plan, the notes (lower ones collapse first)
  for (const section of [tokens, activity, plan, notes]) {
    if (section.length === 0) continue;
    const room = height - out.length;
    if (room <= 0) break;
    const body = section.flatMap((l) => [clip(l, w)]);
    out.push(...body.slice(0, room));
    if (out.length < height) out.push('');
  }
  return out.slice(0, height).map((l) => ` ${pad(l, w)} `.slice(0, width + 1)).map((l) => pad(l, width));
}

/** The cost after the cached count: an estimate (list prices or [llm.prices]); 'no price' (or '+?') marks unpriced models. */
function costText(c: SidebarData['cost']): string {
  if (c === null) return '';
  if (c.usd === 0) return c.unpriced ? ' · no price' : ' · $0';
  return ` · ≈$${c.usd < 0.01 ? c.usd.toFixed(4) : c.usd.toFixed(2)}${c.unpriced ? '+?' : ''}`;
}

export function statusLine(s: StatusData, width: number): string {
  const run = s.run === 'idle' ? 'ready' : s.run;
  const parts = [run, s.waiting ?? '', s.scrolled > 0 ? `↑${s.scrolled} PgDn` : '', s.model || 'model ?', s.tier, s.session ? `session ${s.session}` : 'new session', s.notice, s.where === 'local' ? '' : s.where];
  return pad(` ${parts.filter((p) => p !== '').join(' │ ')}`, width);
}

/** The typed text wrapped at the input's width (`> ` before it) and where the cursor falls in those rows. */
export interface InputView {
  rows: string[];
  cursor: { row: number; col: number };
}

export function inputView(text: string, cursor: number, width: number, hint: string): InputView {
  if (text === '') return { rows: [clip(hint, width)], cursor: { row: 0, col: 0 } };
  const rows = wrap(`> ${text}`, width);
  // the rows of the text before the cursor end where the cursor is (a full last row puts it on the next one)
  const before = wrap(`> ${text.slice(0, cursor)}`, width);
  let row = before.length - 1;
  let col = strWidth(before[row] ?? '');
  if (col >= width) {
    row++;
    col = 0;
  }
  while (rows.length <= row) rows.push('');
  return { rows, cursor: { row, col } };
}

/** The input region: the rule, then the rows that fit, scrolled so the cursor's row is shown; `cursorRow` is the
 *  cursor's row inside the region (1 = the first typed row). */
export function inputLines(v: InputView, width: number, height: number): { lines: string[]; cursorRow: number } {
  const rule = pad('─'.repeat(width), width);
  const room = Math.max(0, height - 1);
  const start = Math.max(0, Math.min(v.rows.length - room, v.cursor.row - room + 1));
  const visible = v.rows.slice(start, start + room).map((l) => pad(l, width));
  while (visible.length < room) visible.push(pad('', width));
  return { lines: [rule, ...visible], cursorRow: 1 + v.cursor.row - start };
}

/** A centered dialog's box: width and lines (border included) fitted to the `rows` above the input box. The key
 *  line and both borders always show; the body gives way (cut with an ellipsis), then the blank line before the keys. */
/** `room` lines of a body longer than that: from `scroll` (or around `focus`), `↑ N more` / `↓ N more` marking cut ends. */
function bodyWindow(body: string[], room: number, d: DialogData): string[] {
  if (room < 3) return [...body.slice(0, room - 1), '…'];
  const max = body.length - room;
  let top = Math.max(0, Math.min(d.scroll ?? 0, max));
  if (d.focus !== undefined) top = Math.max(0, Math.min(max, Math.max(Math.min(top, d.focus - 1), d.focus - room + 2)));
  const out = body.slice(top, top + room);
  if (top > 0) out[0] = `↑ ${top + 1} more`;
  const below = body.length - (top + room);
  if (below > 0) out[room - 1] = `↓ ${below + 1} more`;
  return out;
}

export function dialogBox(d: DialogData, cols: number, rows: number): { width: number; lines: string[] } {
  const width = Math.max(10, Math.min(cols - 2, 72));
  const inner = width - 4;
  const body = wrapWords(plain(d.body), inner);
  const keys = wrapWords(plain(d.keys), inner).slice(0, 2);
  const fixed = 2 + keys.length;
  const blank = rows - fixed - 1 >= 2 ? 1 : 0;
  const room = Math.max(1, rows - fixed - blank);
  const shown = body.length > room ? bodyWindow(body, room, d) : body;
  const t = clip(` ${d.title} `, width - 3);
  const top = `┌─${t}${'─'.repeat(width - 3 - strWidth(t))}┐`;
  const row = (l: string): string => `│ ${pad(l, inner)} │`;
  const bottom = `└${'─'.repeat(width - 2)}┘`;
  const lines = [top, ...shown.map(row), ...(blank ? [row('')] : []), ...keys.map(row), bottom];
  return { width, lines: lines.length > rows ? [...lines.slice(0, Math.max(1, rows - 1)), bottom] : lines };
}
