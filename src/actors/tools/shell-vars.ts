// What a variable of a run_bash command line may hold: the built env's value, or any value the command itself
// assigns (`X=..`, `for f in *`, `export X=…`); a value the check cannot know (`read X`, `X=$(cmd)`, an array, a
// self-reference) makes every use of the variable unknown. Flow-insensitive on purpose: a use sees every assignment.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import type { ShellNode } from './shell-parser.js';

/** The environment run_bash's shell starts with. */
export interface Expansion {
  /** The environment the shell gets (run_bash's built env: a dropped variable is unset there). */
  env: NodeJS.ProcessEnv;
  /** The shell's working directory: `$PWD` inside the command. */
  cwd: string;
}

/** One assignment the command makes: the value's node (null: empty), or a value that cannot be known. */
type Assigned = { node: ShellNode | null; mode: 'assign' | 'for' } | 'unknown' | 'number' | 'empty' | 'positional';

/** Commands that set the variables named by their arguments to values read at run time. */
const READERS = new Set(['read', 'mapfile', 'readarray', 'getopts', 'select', 'wait', 'coproc']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ARITH = new Set(['arithmetic_expansion', 'compound_statement', 'c_style_for_statement']);

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export class ShellVars {
  private readonly assigned = new Map<string, Assigned[]>();
  /** Names whose first assignment is unconditional and comes before every use: the inherited value is never read. */
  private readonly shadowed = new Set<string>();
  private readonly firstUse = new Map<string, number>();
  private readonly firstPlainAssign = new Map<string, number>();
  /** A function or `set` gives the positional parameters values the check cannot see. */
  positionalKnown = true;
  readonly home: string;
  readonly oldpwd: string | undefined;

  constructor(
    readonly x: Expansion,
    root: ShellNode,
  ) {
    this.home = x.env['HOME'] ?? homedir();
    const old = x.env['OLDPWD'];
    this.oldpwd = old !== undefined && old !== '' && isDir(old) ? old : undefined;
    this.collect(root);
    for (const [name, at] of this.firstPlainAssign) if (at < (this.firstUse.get(name) ?? Infinity)) this.shadowed.add(name);
  }

  private add(name: string, a: Assigned): void {
    const list = this.assigned.get(name) ?? [];
    list.push(a);
    this.assigned.set(name, list);
  }

  private collect(n: ShellNode): void {
    switch (n.type) {
      case 'variable_assignment':
        this.assignment(n);
        break;
      case 'for_statement': {
        const v = n.childForFieldName('variable') ?? n.namedChildren.find((c) => c?.type === 'variable_name');
        if (v) {
          const values = n.childrenForFieldName('value').filter((c): c is ShellNode => c !== null);
          // `for f; do` iterates over "$@"
          if (values.length === 0) this.add(v.text, 'positional');
          for (const val of values) this.add(v.text, { node: val, mode: 'for' });
        }
        break;
      }
      case 'function_definition':
        this.positionalKnown = false;
        break;
      case 'command':
        this.command(n);
        break;
      case 'simple_expansion':
      case 'expansion': {
        const v = n.namedChildren.find((c) => c?.type === 'variable_name');
        if (v && !this.firstUse.has(v.text)) this.firstUse.set(v.text, n.startIndex);
        break;
      }
      case 'variable_name':
        if (this.inArithmetic(n)) this.add(n.text, 'number');
        break;
    }
    for (const c of n.children) if (c) this.collect(c);
  }

  private inArithmetic(n: ShellNode): boolean {
    for (let p = n.parent; p; p = p.parent) if (ARITH.has(p.type) && (p.type !== 'compound_statement' || p.firstChild?.type === '((')) return true;
    return false;
  }

  private assignment(n: ShellNode): void {
    const target = n.firstNamedChild;
    if (!target) return;
    // `X=1 cmd`: X is in cmd's environment only; the shell's own X (and $X on that line) is untouched
    if (n.parent?.type === 'command' && n.parent.childForFieldName('name') !== null) return;
    if (target.type === 'subscript') {
      const base = target.firstNamedChild;
      if (base) this.add(base.text, 'unknown');
      return;
    }
    if (this.inArithmetic(n)) return this.add(target.text, 'number');
    const op = n.children.find((c) => c && !c.isNamed && (c.type === '=' || c.type === '+='));
    const value = n.namedChildren.find((c) => c !== target) ?? null;
    if (op?.type === '+=' || value?.type === 'array') return this.add(target.text, 'unknown');
    this.add(target.text, { node: value, mode: 'assign' });
    if (!this.firstPlainAssign.has(target.text) && this.unconditional(n)) this.firstPlainAssign.set(target.text, n.startIndex);
  }

  /** A statement of the top-level sequence (or of a `&&`/`;` list at the top): it runs before whatever follows it. */
  private unconditional(n: ShellNode): boolean {
    for (let p = n.parent; p; p = p.parent) {
      if (p.type === 'program') return true;
      if (p.type === 'list') {
        if (p.children.some((c) => c?.type === '||')) return false;
        continue;
      }
      if (p.type !== 'declaration_command') return false;
    }
    return false;
  }

  private command(n: ShellNode): void {
    const name = n.childForFieldName('name')?.text ?? '';
    const args = n.childrenForFieldName('argument').filter((c): c is ShellNode => c !== null);
    if (READERS.has(name)) for (const a of args) if (NAME.test(a.text)) this.add(a.text, 'unknown');
    if (name === 'printf') {
      const v = args.findIndex((a) => a.text === '-v');
      const target = v >= 0 ? args[v + 1] : undefined;
      if (target) this.add(target.text, 'unknown');
    }
    if (name === 'let') for (const a of args) this.add(a.text.replace(/[^A-Za-z0-9_].*$/s, ''), 'number');
    if (name === 'unset') for (const a of args) if (NAME.test(a.text)) this.add(a.text, 'empty');
    if (name === 'set' && args.length > 0) this.positionalKnown = false;
  }

  /** The inherited value of a name as `bash -c` sees it (special parameters included); null when unknowable. */
  inherited(name: string): string | null {
    if (/^[0-9]+$/.test(name) || name === '@' || name === '*') return this.positionalKnown ? (name === '0' ? 'bash' : '') : null;
    switch (name) {
      case '#':
      case '?':
      case '$':
      case '!':
        return '0';
      case '-':
        return 'hBc';
      case '_':
        return null;
      case 'PWD':
        return this.x.cwd;
      case 'HOME':
        return this.home;
      case 'OLDPWD':
        return this.oldpwd ?? '';
      // `bash -c` is a child of this process: its $PPID is our pid (the sandbox's own bwrap inside a sandbox)
      case 'PPID':
        return String(process.pid);
      case 'RANDOM':
      case 'SECONDS':
      case 'LINENO':
      case 'BASHPID':
      case 'UID':
      case 'EUID':
      case 'EPOCHSECONDS':
      case 'SRANDOM':
        return '0';
    }
    return this.x.env[name] ?? '';
  }

  /** True when `name` may be unset where it is used (an empty value then may be either). */
  maybeUnset(name: string): boolean {
    const { list, inheritedRead } = this.assignments(name);
    const special = /^([0-9]+|[@*#?$!_-])$/.test(name) || ['PWD', 'HOME', 'OLDPWD', 'PPID'].includes(name);
    return (inheritedRead && !special && this.x.env[name] === undefined) || list.includes('empty');
  }

  /** Every assignment of `name` in the command (empty: never assigned) and whether the inherited value can be read. */
  assignments(name: string): { list: readonly Assigned[]; inheritedRead: boolean } {
    return { list: this.assigned.get(name) ?? [], inheritedRead: !this.shadowed.has(name) };
  }
}

export type { Assigned };
