// Issue 22 item 1: run_bash's words are evaluated as bash expands them (tree-sitter-bash parse, then quotes,
// backslashes, $'…', braces, every tilde form, variables the command assigns, globs through symlinks). Each case is
// compared with what bash itself prints for the same word (`printf '%s\0' WORD`), so the oracle is bash, not us.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWords } from '../../src/actors/tools/shell-words.js';
import { tempDir } from './helpers.js';

let base: ReturnType<typeof tempDir>;
let ws: string;
let home: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  base = tempDir('yagent-words-');
  ws = join(base.path, 'ws');
  home = join(base.path, 'home');
  for (const d of [join(ws, 'src'), join(base.path, 'outside'), join(home, '.ssh'), join(home, '.yagent', 'config')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(base.path, 'outside', 'secret.txt'), 'x');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
  writeFileSync(join(ws, 'src', 'a.ts'), '');
  writeFileSync(join(ws, 'src', 'b.ts'), '');
  writeFileSync(join(ws, '.hidden'), '');
  symlinkSync('../outside', join(ws, 'lnk'));
  symlinkSync('../outside', join(ws, 'dl'));
  env = { PATH: process.env.PATH, HOME: home, FOO: 'a b', EMPTY: '' };
});
afterAll(() => base.cleanup());

/** What bash prints for `printf '%s\0' WORDS` in the workspace with the same environment: one field per NUL. */
function bashFields(words: string): string[] {
  const out = execFileSync('bash', ['-c', `printf '%s\\0' ${words}`], { cwd: ws, env, encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

async function ourFields(words: string): Promise<string[]> {
  const all = (await shellWords(`printf '%s\\0' ${words}`, { env, cwd: ws })).filter((w) => w.nested !== true);
  expect(all.every((w) => w.unresolved !== true), JSON.stringify(all)).toBe(true);
  return all.slice(2).flatMap((w) => w.fields);
}

describe('words evaluate as bash expands them', () => {
  it.each([
    ['backslashes', String.raw`\.\./outside/secret.txt d\l/secret.txt ~/.s\sh/id_rsa`],
    ['quotes', `"$HOME"/x '$HOME'/y "a"'b'c $"d" $'\\x2e\\x2e/e\\n'`],
    ['braces', '{..,nope}/outside/secret.txt x{,y} {a,{b,c}}d {1..3} {01..03} {a..c} e{n,}viron {a} "{a,b}" \\{a,b\\}'],
    ['tildes', '~ ~/x ~+/../outside ~root/x ~nosuchuser/x a=~/x:~/y --o=~/z'],
    ['globs through symlinks', 'lnk* d?/secret.txt src/*.ts .h* * nomatch*'],
    ['variables', '$FOO "$FOO" ${FOO:-d} ${EMPTY:-d} ${EMPTY-d} ${UNSET:+alt} ${#FOO} $PWD/x $1 "$@"'],
  ])('%s', async (_what, words) => {
    expect(await ourFields(words)).toEqual(bashFields(words));
  });

  it('variables the command assigns take every value it gives them; a prefix assignment is only the command’s', async () => {
    const words = await shellWords('D=..; cat $D/outside/x; for f in src/*.ts; do wc -l $f; done; X=/tmp cat $X', { env, cwd: ws });
    const paths = words.flatMap((w) => w.paths);
    expect(paths).toContain('../outside/x');
    expect(paths).toEqual(expect.arrayContaining(['src/a.ts', 'src/b.ts']));
    expect(words.some((w) => w.unresolved)).toBe(false);
  });

  it.each([
    'cat $(dirname $PWD)/x',
    'cat `echo ..`/x',
    'read D; cat $D/x',
    'cat ${HOME#/}',
    'D=$(pwd); cat $D',
    'X=$X/..; cat $X',
    'f() { cat $1; }; f ..',
  ])('%s: the word cannot be known, so it is unresolved', async (command) => {
    const words = await shellWords(command, { env, cwd: ws });
    expect(words.some((w) => w.unresolved)).toBe(true);
  });

  it('a shell run on quoted text (`bash -c`, eval) and a heredoc are read again; unknown words there count only for a shell', async () => {
    const paths = async (c: string): Promise<string[]> => (await shellWords(c, { env, cwd: ws })).flatMap((w) => w.paths);
    expect(await paths(String.raw`bash -c 'cat ~/.s\sh/id_rsa'`)).toContain(join(home, '.ssh', 'id_rsa'));
    expect(await paths(String.raw`eval cat "\~/.ss?/id_rsa"`)).toContain(join(home, '.ssh', 'id_rsa'));
    expect(await paths('cat > notes.md <<EOF\nsee ../outside/secret.txt\nEOF')).toContain('../outside/secret.txt');
    expect((await shellWords("bash -c 'cat $(echo x)'", { env, cwd: ws })).some((w) => w.unresolved)).toBe(true);
    expect((await shellWords("cat > a.js <<'EOF'\nconst s = `${x}`;\nEOF", { env, cwd: ws })).some((w) => w.unresolved)).toBe(false);
  });
});
