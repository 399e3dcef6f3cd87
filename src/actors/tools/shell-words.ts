// run_bash's words as bash will see them: the command line parsed by a real bash grammar (shell-parser.ts), every
// word (arguments, redirection targets, assignment values, loop lists, words inside `$(…)`) evaluated the way bash
// expands it — quotes and backslashes, `$'…'`, brace expansion, every tilde form, variables (shell-vars.ts), word
// splitting, globs against the file system. A word whose value cannot be known (`$(cmd)`, `${V#p}`, `read V`) is
// `unresolved`; quoted text that a nested shell would read again (`bash -c '…'`, `eval`, heredocs) is parsed too.
import { parseBash, ShellNode } from './shell-parser.js';
import { expandBraces, expandGlob, expandTilde, substitute, TooMany, atoms, type Atom, type ExpValue, type TildeContext, type Tok } from './shell-expand.js';
import { ShellVars, type Expansion } from './shell-vars.js';

export type { Expansion } from './shell-vars.js';

export interface ShellWord {
  /** The word as written in the command line. */
  token: string;
  /** What bash expands it to, one entry per field. */
  fields: string[];
  /** Each field as a path it may name (`NAME=` and `--opt=` prefixes taken off). */
  paths: string[];
  /** Found in text read again (`bash -c '…'`, `eval`, a heredoc, quoted text), not in the command line itself. */
  nested?: true;
  /** The word holds something this check cannot evaluate: where it lands is unknown. */
  unresolved?: true;
  /** The command line does not parse as bash (the check cannot trust what it read). */
  syntax?: true;
}

const WORDISH = new Set(['word', 'string', 'raw_string', 'ansi_c_string', 'translated_string', 'concatenation', 'simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'arithmetic_expansion', 'number', 'brace_expression', 'extglob_pattern']);
/** Nested shells read quoted text again: parsed up to this depth. */
const MAX_DEPTH = 2;
const MAX_VALUES = 16;
/** A quoted character a nested shell would treat as syntax: its field is parsed again. */
const SPECIAL = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')', '$', '`', "'", '"', '\\', '{', '}', '*', '?', '[', '~']);
const DEFAULT_OPS = new Set([':-', '-', ':=', '=', ':+', '+', ':?', '?']);

const ANSI: Readonly<Record<string, string>> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** `$'…'` as bash decodes it: C escapes, octal, hex, \u/\U code points, \cX control characters. */
export function decodeAnsiC(s: string): string {
  return s.replace(/\\(?:([abeEfnrtv\\'"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.))/gs, (all, c: string | undefined, oct: string | undefined, hex: string | undefined, u: string | undefined, uu: string | undefined, ctl: string | undefined) => {
    if (c !== undefined) return ANSI[c] ?? all;
    const code = oct !== undefined ? parseInt(oct, 8) : hex !== undefined ? parseInt(hex, 16) : u !== undefined ? parseInt(u, 16) : uu !== undefined ? parseInt(uu, 16) : (ctl?.toUpperCase().charCodeAt(0) ?? 64) ^ 64;
    return code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/** The characters and expansions of one word, built from its nodes. */
class Builder {
  readonly toks: Tok[] = [];
  readonly values: ExpValue[] = [];
  unresolved = false;
  lit(s: string): void {
    this.toks.push(...atoms(s, true));
  }
  /** Unquoted source text: a backslash quotes the next character, backslash-newline is removed. */
  bare(s: string): void {
    for (let i = 0; i < s.length; i++) {
      const ch = s[i] as string;
      if (ch !== '\\' || i + 1 >= s.length) this.toks.push({ ch, q: false });
      else if (s[++i] !== '\n') this.toks.push({ ch: s[i] as string, q: true });
    }
  }
  /** Double-quoted text: a backslash escapes only `$`, backquote, `"`, `\` and newline. */
  dquoted(s: string): void {
    this.lit(s.replace(/\\([$`"\\\n])/g, (_a, c: string) => (c === '\n' ? '' : c)));
  }
  exp(values: readonly string[] | null, quoted: boolean): void {
    if (values === null) this.unresolved = true;
    else this.toks.push({ exp: this.values.push({ values, quoted }) - 1 });
  }
}

const chars = (f: readonly Atom[]): string => f.map((a) => a.ch).join('');
const nested = (f: readonly Atom[]): boolean => f.some((a) => a.q && SPECIAL.has(a.ch));
const pathOf = (field: string): string => field.replace(/^[A-Za-z_][A-Za-z0-9_]*\+?=/, '').replace(/^-[-A-Za-z0-9_]*=/, '');

/** Shells whose `-c` argument is a command line: its unknown words count like the outer ones. */
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'busybox']);

class WordEvaluator {
  /** Text to parse again: true when a shell surely runs it (`eval`, `bash -c`); otherwise only its paths count
   *  (quoted text or a heredoc that may or may not be a script: an unknown word there is not asked about). */
  readonly again = new Map<string, boolean>();
  private loose(text: string): void {
    if (!this.again.has(text)) this.again.set(text, false);
  }

  private readonly memo = new Map<string, readonly string[] | null>();
  private readonly evaluating = new Set<string>();
  private readonly tilde: TildeContext;

  constructor(
    private readonly vars: ShellVars,
    private readonly x: Expansion,
  ) {
    this.tilde = { home: vars.home, pwd: x.cwd, oldpwd: vars.oldpwd };
  }

  walk(n: ShellNode, out: ShellWord[]): void {
    if (WORDISH.has(n.type) && !WORDISH.has(n.parent?.type ?? '') && n.parent?.type !== 'heredoc_body') out.push(this.word(n));
    if (n.type === 'heredoc_body') this.loose(n.text);
    if (n.type === 'command') this.commandExtras(n, out);
    for (const c of n.children) if (c) this.walk(c, out);
  }

  /** `cd` alone goes home, `cd -` to OLDPWD; `eval` and `bash -c` run their arguments as a command line. */
  private commandExtras(n: ShellNode, out: ShellWord[]): void {
    const name = n.childForFieldName('name')?.text;
    const args = n.childrenForFieldName('argument').filter((c): c is ShellNode => c !== null);
    if ((name === 'cd' || name === 'pushd') && (args.length === 0 || args[0]?.text === '-')) {
      const dir = args.length === 0 ? this.vars.home : (this.vars.oldpwd ?? this.x.cwd);
      out.push({ token: n.text, fields: [dir], paths: [dir] });
    }
    if (name === 'eval' && args.length > 0) {
      const fields = args.map((a) => this.evaluate(a));
      if (fields.every((f) => f !== null)) this.again.set(fields.flat().join(' '), true);
    }
    const c = SHELLS.has((name ?? '').replace(/^.*\//, '')) ? args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a.text)) : -1;
    const script = c >= 0 ? args[c + 1] : undefined;
    if (script) for (const f of this.evaluate(script) ?? []) this.again.set(f, true);
  }

  private word(n: ShellNode): ShellWord {
    const fields = this.evaluate(n);
    if (fields === null) return { token: n.text, fields: [], paths: [], unresolved: true };
    return { token: n.text, fields, paths: fields.map(pathOf) };
  }

  /** The fields a word expands to, or null when it cannot be known. */
  evaluate(n: ShellNode): string[] | null {
    const assignment = n.parent?.type === 'variable_assignment';
    const b = new Builder();
    this.parts(n, b, false);
    if (b.unresolved) return null;
    // `~` with a HOME the command itself sets is not the HOME this check knows
    if (this.vars.assignments('HOME').list.length > 0 && b.toks.some((t) => 'ch' in t && t.ch === '~' && !t.q)) return null;
    try {
      const out: string[] = [];
      for (const alt of assignment ? [b.toks] : expandBraces(b.toks)) {
        // an assignment's value is not split or globbed
        const values = assignment ? b.values.map((v) => ({ ...v, quoted: true })) : b.values;
        for (const f of substitute(expandTilde(alt, this.tilde, assignment), values)) {
          if (nested(f)) this.loose(chars(f));
          const g = assignment ? null : expandGlob(f, this.x.cwd);
          if (g === null || g.length === 0) out.push(chars(f));
          else out.push(...g);
        }
      }
      return out;
    } catch (e) {
      if (e instanceof TooMany) return null;
      throw e;
    }
  }

  private parts(n: ShellNode, b: Builder, quoted: boolean): void {
    switch (n.type) {
      case 'raw_string':
        return b.lit(n.text.slice(1, -1));
      case 'ansi_c_string':
        return b.lit(decodeAnsiC(n.text.slice(2, -1)));
      case 'string':
      case 'translated_string':
        return this.sequence(n, b, true);
      case 'concatenation':
        return this.sequence(n, b, quoted);
      case 'simple_expansion': {
        const v = n.namedChildren.find((c) => c?.type === 'variable_name' || c?.type === 'special_variable_name');
        return v ? b.exp(this.values(v.text), quoted) : b.bare(n.text);
      }
      case 'expansion':
        return this.expansion(n, b, quoted);
      case 'command_substitution':
        b.unresolved = true;
        return;
      case 'process_substitution':
        return b.lit('/dev/fd/63');
      case 'arithmetic_expansion':
        return b.lit('0');
      case 'string_content':
        return b.dquoted(n.text);
      case 'word':
      case 'number':
      case 'brace_expression':
        return quoted ? b.dquoted(n.text) : b.bare(n.text);
      default:
        if (n.isNamed) b.unresolved = true;
        else if (quoted) b.lit(n.text);
        else b.bare(n.text);
    }
  }

  /** Children in order, with any source text between them; a string's own quotes are not part of its value. */
  private sequence(n: ShellNode, b: Builder, quoted: boolean): void {
    const src = n.text;
    const base = n.startIndex;
    let at = 0;
    const kids = n.children.filter((c): c is ShellNode => c !== null);
    for (const [k, c] of kids.entries()) {
      const gap = src.slice(at, c.startIndex - base);
      if (gap !== '') this.parts(new ShellNode(quoted ? 'string_content' : 'word', gap, true, 0, 0, null, null), b, quoted);
      at = c.endIndex - base;
      const delimiter = (n.type === 'string' || n.type === 'translated_string') && !c.isNamed && (k === 0 || k === kids.length - 1) && (c.type === '"' || c.type === '$"');
      if (!delimiter) this.parts(c, b, quoted);
    }
  }

  /** `${V}`, `${#V}` and the default/alternative forms; any other operator is unknown. */
  private expansion(n: ShellNode, b: Builder, quoted: boolean): void {
    const kids = n.children.filter((c): c is ShellNode => c !== null && c.type !== '${' && c.type !== '}');
    const v = kids[0]?.type === '#' ? kids[1] : kids[0];
    if (v === undefined || (v.type !== 'variable_name' && v.type !== 'special_variable_name')) return void (b.unresolved = true);
    const values = this.values(v.text);
    if (kids[0]?.type === '#') return kids.length === 2 ? b.exp(values && [...new Set(values.map((x) => String([...x].length)))], true) : void (b.unresolved = true);
    if (kids.length === 1) return b.exp(values, quoted);
    const op = kids[1];
    if (op === undefined || op.isNamed || !DEFAULT_OPS.has(op.type) || values === null) return void (b.unresolved = true);
    const alt = new Builder();
    for (const c of kids.slice(2)) this.parts(c, alt, quoted);
    if (alt.unresolved) return void (b.unresolved = true);
    const words = substitute(expandTilde(alt.toks, this.tilde, false), alt.values.map((x) => ({ ...x, quoted: true }))).map(chars);
    const word = words.length === 0 ? [''] : words;
    const colon = op.type.startsWith(':');
    const out = new Set<string>();
    for (const value of values) {
      // '' may be an empty or an unset variable (the check cannot tell): both outcomes of `${V-w}` are kept
      const set = value !== '' || !colon;
      const unsetToo = value === '' && !colon && this.vars.maybeUnset(v.text);
      const kind = op.type.slice(-1);
      if (kind === '+') {
        if (set) word.forEach((w) => out.add(w));
        if (!set || unsetToo) out.add('');
      } else {
        if (set) out.add(value);
        if ((!set || unsetToo) && kind !== '?') word.forEach((w) => out.add(w));
      }
    }
    b.exp([...out], quoted);
  }

  /** Every value a variable may hold here; null when one of them cannot be known. */
  values(name: string): readonly string[] | null {
    const hit = this.memo.get(name);
    if (hit !== undefined) return hit;
    if (this.evaluating.has(name)) return null; // `X=$X/..`: depends on how often it ran
    this.evaluating.add(name);
    try {
      const r = this.compute(name);
      this.memo.set(name, r);
      return r;
    } finally {
      this.evaluating.delete(name);
    }
  }

  private compute(name: string): readonly string[] | null {
    const inherited = this.vars.inherited(name);
    const { list, inheritedRead } = this.vars.assignments(name);
    const out = new Set<string>();
    if (inheritedRead || list.length === 0) {
      if (inherited === null) return null;
      out.add(inherited);
    }
    for (const a of list) {
      if (a === 'unknown') return null;
      if (a === 'positional' && !this.vars.positionalKnown) return null;
      if (typeof a === 'string') out.add(a === 'number' ? '0' : '');
      else if (a.node === null) out.add('');
      else {
        const fields = this.evaluate(a.node);
        if (fields === null) return null;
        fields.forEach((f) => out.add(f));
      }
      if (out.size > MAX_VALUES) return null;
    }
    return [...out];
  }
}

/** Every word of a command line after bash's expansions, words of nested command lines included. */
export async function shellWords(command: string, x: Expansion, depth = 0): Promise<ShellWord[]> {
  const tree = await parseBash(command);
  const out: ShellWord[] = [];
  const root = tree.root;
  if (tree.hasError) out.push({ token: command.length > 80 ? `${command.slice(0, 77)}...` : command, fields: [], paths: [], unresolved: true, syntax: true });
  const ev = new WordEvaluator(new ShellVars(x, root), x);
  ev.walk(root, out);
  const again = [...ev.again];
  if (depth < MAX_DEPTH) {
    for (const [text, strict] of again) {
      for (const w of await shellWords(text, x, depth + 1)) if (strict ? w.syntax !== true : w.unresolved !== true) out.push({ ...w, nested: true });
    }
  }
  return out;
}

const isPathLike = (p: string): boolean => p.startsWith('/') || /(^|\/)\.\.(\/|$)/.test(p);

/** The expanded path-like words (absolute, home-relative, with `..`) of a command in this process's environment. */
export async function pathTokens(command: string, cwd = process.cwd()): Promise<string[]> {
  return (await shellWords(command, { env: process.env, cwd })).flatMap((w) => w.paths.filter(isPathLike));
}
