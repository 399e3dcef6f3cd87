// The path heuristic of run_bash: the path-like words of a command line after the expansions bash would do to
// them ($HOME, ${HOME}, ~, ~user), so `cp $HOME/x .` is checked like `cp /home/me/x .`. A heuristic, not a parser:
// `cd elsewhere && …` or a path built at run time are not seen (without -y yagent asks; it is not a sandbox).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ShellPathToken {
  /** The word as written (after quotes, `VAR=` and `--opt=` are stripped). */
  token: string;
  /** The word after tilde and variable expansion. */
  path: string;
  /** The word holds an expansion this check cannot evaluate (`${V#pat}`, `${V:0:1}`, `$'…'`): where it lands is unknown. */
  unresolved?: true;
}

export interface Expansion {
  /** The environment the shell gets (run_bash's built env: a dropped variable is unset there). */
  env: NodeJS.ProcessEnv;
  /** The shell's working directory: `$PWD` inside the command. */
  cwd: string;
}

/** `~user`'s home from /etc/passwd; an unknown user is taken as `/home/<user>` (outside either way). */
export function userHome(user: string): string {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === user && f[5] !== undefined && f[5] !== '') return f[5];
    }
  } catch {
    // no passwd file: fall through to the conventional location
  }
  return join('/home', user);
}

const VAR = /\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `${NAME op word}` whose result is the variable's value or the word: `:-` `-` `:=` `=` `:+` `+` `:?` `?`. */
const DEFAULT_OP = /^([A-Za-z_][A-Za-z0-9_]*)(:?)([-=+?])(.*)$/s;

/** What `bash -c` gives a special parameter: `$0` is "bash", positional ones and `$@` are empty, counts are digits. */
function special(p: string): string {
  if (p === '0') return 'bash';
  if (p === '#' || p === '?' || p === '$') return '0';
  if (p === '-') return 'hBc';
  return ''; // $1…$9, $@, $*, $! (no background job yet)
}

/** Tilde and variable expansion as bash does it for these words: an unset variable is empty, as in the shell.
 *  null when the word holds an expansion this check cannot evaluate. */
export function expandWord(word: string, x: Expansion): string | null {
  const home = x.env['HOME'] ?? homedir();
  // `bash -c` is a child of this process: its $PPID is our pid
  const value = (name: string): string | undefined => (name === 'PWD' ? x.cwd : name === 'HOME' ? home : name === 'PPID' ? String(process.pid) : x.env[name]);
  let s = word;
  const tilde = /^~([A-Za-z0-9._-]*)(?=\/|$)/.exec(s);
  if (tilde) s = (tilde[1] === '' ? home : userHome(tilde[1] ?? '')) + s.slice(tilde[0].length);
  let unresolved = false;
  const braced = (inner: string): string => {
    if (NAME.test(inner)) return value(inner) ?? '';
    if (/^([0-9]+|[@*#?$!-])$/.test(inner)) return special(inner);
    const op = inner.includes('$') || inner.includes('{') ? null : DEFAULT_OP.exec(inner);
    if (op === null) return ((unresolved = true), '');
    const [, name = '', colon, kind, rest = ''] = op;
    const v = value(name);
    const set = colon === ':' ? v !== undefined && v !== '' : v !== undefined;
    const alt = kind === '+' ? (set ? rest : '') : set ? (v ?? '') : kind === '?' ? '' : rest;
    return expandWord(alt, x) ?? ((unresolved = true), '');
  };
  const out = s.replace(VAR, (_all: string, inner: string | undefined, bare: string | undefined) =>
    inner !== undefined ? braced(inner) : NAME.test(bare ?? '') ? (value(bare ?? '') ?? '') : special(bare ?? ''),
  );
  return unresolved ? null : out;
}

/** Every word of a command after expansion: any of them may be a path (`cat link` through a symlink too). */
export function shellWords(command: string, x: Expansion): ShellPathToken[] {
  const out: ShellPathToken[] = [];
  for (const raw of command.split(/[\s;|&<>()`]+/)) {
    // $'…' (ANSI-C escapes) cannot be read as written; $"…" is the quoted text itself
    const ansi = raw.includes("$'");
    const t = raw.replace(/\$"/g, '"').replace(/['"]/g, '').replace(/^[A-Za-z_][A-Za-z0-9_]*=/, '').replace(/^-[A-Za-z-]+=/, '');
    if (t === '') continue;
    const path = ansi ? null : expandWord(t, x);
    out.push(path === null ? { token: t, path: t, unresolved: true } : { token: t, path });
  }
  return out;
}

const isPathLike = (p: string): boolean => p.startsWith('/') || /(^|\/)\.\.(\/|$)/.test(p);

/** The expanded path-like words (absolute, home-relative, with `..`) of a command in this process's environment. */
export function pathTokens(command: string, cwd = process.cwd()): string[] {
  return shellWords(command, { env: process.env, cwd }).flatMap((t) => (isPathLike(t.path) ? [t.path] : []));
}
