// The expansions bash applies to one word after parsing, in bash's order, on characters that remember whether they
// were quoted: brace expansion, tilde expansion, word splitting of unquoted expansions, pathname expansion (globs
// matched against the file system, through symlinks). bash 5.2 defaults of `bash -c`: no dotglob, no nullglob, no
// extglob, globskipdots (`.*` never matches `.` or `..`), an unmatched glob stays as written.
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One character of a word; `q`: quoted or escaped (never a brace, tilde or glob operator). */
export interface Atom {
  ch: string;
  q: boolean;
}

/** A word before brace expansion: characters, and expansions whose value is not text yet (index into `values`). */
export type Tok = Atom | { exp: number };

/** What an expansion may expand to (several values: the variable is assigned more than once); quoted ones are not split. */
export interface ExpValue {
  values: readonly string[];
  quoted: boolean;
}

/** Past these counts a word is not evaluated (it is asked about instead): a brace or glob explosion. */
export const MAX_FIELDS = 256;
const MAX_GLOB_MATCHES = 1000;

export class TooMany extends Error {}

const isAtom = (t: Tok): t is Atom => 'ch' in t;
const active = (t: Tok | undefined, ch: string): boolean => t !== undefined && isAtom(t) && !t.q && t.ch === ch;
export const atoms = (s: string, q: boolean): Atom[] => Array.from(s, (ch) => ({ ch, q }));
const text = (ts: readonly Tok[]): string | null => (ts.every(isAtom) ? ts.map((t) => (t as Atom).ch).join('') : null);

const NUM_SEQ = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/;
const CHAR_SEQ = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/;

/** `{a..e}`, `{1..10..2}`, `{01..10}` (zero-padded); null when the braces hold no sequence. */
function sequence(inner: readonly Tok[]): Tok[][] | null {
  const s = inner.every((t) => isAtom(t) && !t.q) ? text(inner) : null;
  if (s === null) return null;
  const num = NUM_SEQ.exec(s);
  const chr = num ? null : CHAR_SEQ.exec(s);
  if (!num && !chr) return null;
  const [, a = '', b = '', c] = (num ?? chr) as RegExpExecArray;
  const from = num ? Number(a) : a.charCodeAt(0);
  const to = num ? Number(b) : b.charCodeAt(0);
  const step = Math.abs(Number(c ?? 1)) || 1;
  const width = num && (/^-?0\d/.test(a) || /^-?0\d/.test(b)) ? Math.max(a.length, b.length) : 0;
  const out: Tok[][] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    if (out.length >= MAX_FIELDS) throw new TooMany();
    const item = num ? (v < 0 ? `-${String(-v).padStart(width - 1, '0')}` : String(v).padStart(width, '0')) : String.fromCharCode(v);
    out.push(atoms(item, true));
  }
  return out;
}

/** Brace expansion: `{a,b}` and sequences, nested, on unquoted braces only (`${…}` is an expansion, never a brace). */
export function expandBraces(toks: readonly Tok[], from = 0): Tok[][] {
  for (let i = from; i < toks.length; i++) {
    if (!active(toks[i], '{')) continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = i; j < toks.length && close < 0; j++) {
      if (active(toks[j], '{')) depth++;
      else if (active(toks[j], '}') && --depth === 0) close = j;
      else if (depth === 1 && active(toks[j], ',')) commas.push(j);
    }
    if (close < 0) continue;
    const inner = toks.slice(i + 1, close);
    const alts = commas.length > 0 ? [i, ...commas].map((c, k) => toks.slice(c + 1, commas[k] ?? close)) : sequence(inner);
    if (alts === null) continue; // `{a}`, `{}`: literal
    const out: Tok[][] = [];
    for (const alt of alts) {
      for (const e of expandBraces([...toks.slice(0, i), ...alt, ...toks.slice(close + 1)], i)) {
        if (out.push(e) > MAX_FIELDS) throw new TooMany();
      }
    }
    return out;
  }
  return [[...toks]];
}

/** `~user`'s home from /etc/passwd; undefined for an unknown user (bash leaves `~nosuch` as written). */
export function userHome(user: string): string | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === user && f[5] !== undefined && f[5] !== '') return f[5];
    }
  } catch {
    // no passwd file: no user is known
  }
  return undefined;
}

export interface TildeContext {
  home: string;
  pwd: string;
  /** bash keeps an inherited OLDPWD only when it names a directory. */
  oldpwd: string | undefined;
}

/** The tilde prefix at `start` (up to the next unquoted `/` or `:` in an assignment) replaced as bash does: `~`, `~+`,
 *  `~-`, `~user`; a prefix with a quoted character or an expansion in it stays as written. */
function tildeAt(toks: Tok[], start: number, x: TildeContext, assignment: boolean): Tok[] {
  if (!active(toks[start], '~')) return toks;
  let end = start + 1;
  while (end < toks.length && !active(toks[end], '/') && !(assignment && active(toks[end], ':'))) end++;
  const prefix = toks.slice(start + 1, end);
  if (!prefix.every((t) => isAtom(t) && !t.q)) return toks;
  const name = text(prefix) ?? '';
  const dir = name === '' ? x.home : name === '+' ? x.pwd : name === '-' ? x.oldpwd : /^[A-Za-z0-9._-]+$/.test(name) ? userHome(name) : undefined;
  if (dir === undefined) return toks;
  return [...toks.slice(0, start), ...atoms(dir, true), ...toks.slice(end)];
}

const ASSIGN_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** Tilde expansion of a word: at its start; in an assignment (or an argument shaped like one, as bash does outside
 *  POSIX mode) also after the `=` and after every unquoted `:`. */
export function expandTilde(toks: Tok[], x: TildeContext, assignment: boolean): Tok[] {
  let out = tildeAt(toks, 0, x, assignment);
  const head = text(out.slice(0, 64).filter(isAtom).slice(0, 64));
  const eq = ASSIGN_PREFIX.exec(head ?? '');
  if (!assignment && !eq) return out;
  let i = assignment ? 0 : (eq?.[0].length ?? 0);
  if (!assignment) out = tildeAt(out, i, x, true);
  for (; i < out.length; i++) if (active(out[i], ':')) out = tildeAt(out, i + 1, x, true);
  return out;
}

/** Expansions replaced by their values: a multi-valued one forks the word, an unquoted one is split on blanks
 *  (what follows a split goes on in the last field); empty fields are dropped, as bash drops unquoted empty words. */
export function substitute(toks: readonly Tok[], values: readonly ExpValue[]): Atom[][] {
  let forks: Atom[][][] = [[[]]];
  for (const t of toks) {
    if (isAtom(t)) {
      for (const fields of forks) fields[fields.length - 1]?.push(t);
      continue;
    }
    const v = values[t.exp] ?? { values: [''], quoted: true };
    const next: Atom[][][] = [];
    for (const fields of forks) {
      for (const value of v.values) {
        const copy = fields.map((f) => [...f]);
        const parts = v.quoted ? [value] : value.split(/[ \t\n]+/);
        copy[copy.length - 1]?.push(...atoms(parts[0] ?? '', v.quoted));
        for (const p of parts.slice(1)) copy.push(atoms(p, false));
        if (next.push(copy) > MAX_FIELDS) throw new TooMany();
      }
    }
    forks = next;
  }
  return forks.flatMap((fields) => fields.filter((f) => f.length > 0));
}

const POSIX_CLASS: Readonly<Record<string, string>> = {
  alpha: 'a-zA-Z', digit: '0-9', alnum: 'a-zA-Z0-9', upper: 'A-Z', lower: 'a-z', space: '\\s', blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~', xdigit: '0-9A-Fa-f', word: '\\w', cntrl: '\\x00-\\x1f\\x7f', print: '\\x20-\\x7e', graph: '\\x21-\\x7e',
};
const reEscape = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** One path segment as a RegExp, or null when it has no unquoted glob operator. */
export function segmentPattern(seg: readonly Atom[]): RegExp | null {
  let re = '';
  let glob = false;
  for (let i = 0; i < seg.length; i++) {
    const a = seg[i] as Atom;
    if (a.q || (a.ch !== '*' && a.ch !== '?' && a.ch !== '[')) {
      re += reEscape(a.ch);
      continue;
    }
    if (a.ch === '*') re += '[^/]*';
    else if (a.ch === '?') re += '[^/]';
    else {
      const cls = bracket(seg, i);
      if (cls === null) {
        re += '\\[';
        continue;
      }
      re += cls.re;
      i = cls.end;
    }
    glob = true;
  }
  return glob ? new RegExp(`^${re}$`, 's') : null;
}

/** A bracket expression starting at `open` (`[abc]`, `[!a-z]`, `[[:alpha:]]`), or null when it never closes. */
function bracket(seg: readonly Atom[], open: number): { re: string; end: number } | null {
  let i = open + 1;
  let body = '';
  const neg = seg[i] !== undefined && !seg[i]?.q && (seg[i]?.ch === '!' || seg[i]?.ch === '^');
  if (neg) i++;
  for (let first = true; i < seg.length; i++, first = false) {
    const a = seg[i] as Atom;
    if (!a.q && a.ch === ']' && !first) return { re: `[${neg ? '^' : ''}${body}]`, end: i };
    if (!a.q && a.ch === '[' && seg[i + 1]?.ch === ':') {
      const rest = seg.slice(i + 2).map((x) => x.ch).join('');
      const m = /^([a-z]+):\]/.exec(rest);
      const cls = m ? POSIX_CLASS[m[1] ?? ''] : undefined;
      if (m && cls !== undefined) {
        body += cls;
        i += 1 + (m[0].length ?? 0);
        continue;
      }
    }
    body += !a.q && a.ch === '-' && !first && seg[i + 1]?.ch !== ']' ? '-' : reEscape(a.ch);
  }
  return null;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // ENOTDIR, EACCES: not there for the shell either
  }
}

/** A directory's names; none when it cannot be read (gone, EACCES): bash matches nothing there either. */
function names(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Pathname expansion of one field against the file system (directories read through symlinks, as the kernel does);
 *  null when the field has no glob operator, [] when nothing matches (the field then stays as written). */
export function expandGlob(field: readonly Atom[], cwd: string): string[] | null {
  const segs: Atom[][] = [[]];
  for (const a of field) {
    if (a.ch === '/') segs.push([]);
    else segs[segs.length - 1]?.push(a);
  }
  const patterns = segs.map(segmentPattern);
  if (patterns.every((p) => p === null)) return null;
  const absolute = field[0]?.ch === '/';
  // each state: the path on disk and the text the shell would produce for it
  let states: { disk: string; text: string }[] = [{ disk: absolute ? '/' : cwd, text: absolute ? '/' : '' }];
  for (const [k, seg] of segs.entries()) {
    if (k === 0 && absolute) continue;
    const sep = (t: string): string => (t === '' || t.endsWith('/') ? t : `${t}/`);
    const pattern = patterns[k];
    if (pattern === null || pattern === undefined) {
      const name = seg.map((a) => a.ch).join('');
      states = states.map((s) => ({ disk: join(s.disk, name), text: `${sep(s.text)}${name}` }));
      continue;
    }
    const dotOk = seg[0]?.ch === '.';
    const next: typeof states = [];
    for (const s of states) {
      if (!isDirectory(s.disk)) continue;
      for (const name of names(s.disk)) {
        if (name === '.' || name === '..' || (!dotOk && name.startsWith('.')) || !pattern.test(name)) continue;
        if (next.push({ disk: join(s.disk, name), text: `${sep(s.text)}${name}` }) > MAX_GLOB_MATCHES) throw new TooMany();
      }
    }
    states = next;
  }
  return states.filter((s) => exists(s.disk)).map((s) => s.text);
}
