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
}

export interface Expansion {
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

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Tilde and variable expansion as bash does it for these words; unknown variables stay as written. */
export function expandWord(word: string, x: Expansion): string {
  const home = x.env['HOME'] ?? homedir();
  let s = word;
  const tilde = /^~([A-Za-z0-9._-]*)(?=\/|$)/.exec(s);
  if (tilde) s = (tilde[1] === '' ? home : userHome(tilde[1] ?? '')) + s.slice(tilde[0].length);
  return s.replace(VAR, (all: string, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    if (name === 'PWD') return x.cwd;
    if (name === 'HOME') return home;
    return x.env[name] ?? all;
  });
}

/** Every word of a command after expansion: any of them may be a path (`cat link` through a symlink too). */
export function shellWords(command: string, x: Expansion): ShellPathToken[] {
  const out: ShellPathToken[] = [];
  for (const raw of command.split(/[\s;|&<>()`]+/)) {
    const t = raw.replace(/['"]/g, '').replace(/^[A-Za-z_][A-Za-z0-9_]*=/, '').replace(/^-[A-Za-z-]+=/, '');
    if (t !== '') out.push({ token: t, path: expandWord(t, x) });
  }
  return out;
}

const isPathLike = (p: string): boolean => p.startsWith('/') || /(^|\/)\.\.(\/|$)/.test(p);

/** The expanded path-like words (absolute, home-relative, with `..`) of a command in this process's environment. */
export function pathTokens(command: string, cwd = process.cwd()): string[] {
  return shellWords(command, { env: process.env, cwd }).flatMap((t) => (isPathLike(t.path) ? [t.path] : []));
}
