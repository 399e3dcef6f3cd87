// Issue 22 item 3: the git yagent spawns runs no program the repository names and sees no key. Each vector is armed
// in a real repository (its own .git/config, hooks, an included file, a submodule, a `git` in a relative PATH entry)
// so that plain `git status` runs it; each leaves a marker file when it runs. Real git throughout.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { driverOverrides, runSafeGit, safeGitEnv } from '../../src/runtime/safe-git.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'yagent-safe-git-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HOME_ENV = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: join(dir, 'home') });
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    env: HOME_ENV(),
  }).trim();

/** A script that records that it ran (and the environment it saw) in `marker`, then passes stdin through. */
function dumper(name: string, marker: string): string {
  const path = join(dir, `${name}.sh`);
  writeFileSync(path, `#!/bin/sh\nenv > '${marker}'\ncat\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Every file's mtime moved, so git status must compare content (and so run a clean filter) for each. */
function touchAll(repo: string, files: string[]): void {
  for (const f of files) utimesSync(join(repo, f), new Date('2001-01-01'), new Date('2001-01-01'));
}

/** A repository whose config arms every vector; returns the markers by vector. */
function armed(): { repo: string; markers: Record<string, string> } {
  mkdirSync(join(dir, 'home'));
  const repo = join(dir, 'repo');
  const sub = join(dir, 'sub-origin');
  for (const d of [repo, sub]) {
    mkdirSync(d);
    git(d, 'init', '-q');
  }
  writeFileSync(join(sub, 's.txt'), 'sub\n');
  writeFileSync(join(sub, '.gitattributes'), '* filter=subx\n');
  git(sub, 'add', '.');
  git(sub, 'commit', '-qm', 'sub');
  const files = { 'a.txt': 'one\n', 'b.dat': 'two\n', 'c.odd': 'three\n', 'd.inc': 'four\n' };
  for (const [f, c] of Object.entries(files)) writeFileSync(join(repo, f), c);
  writeFileSync(join(repo, '.gitattributes'), '*.txt filter=x\n*.dat filter=proc\n*.odd filter=a.b=c\n*.inc filter=inc\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  git(repo, 'submodule', '-q', 'add', sub, 'sub');
  git(repo, 'commit', '-qm', 'sub');
  const m = (k: string): string => join(dir, `ran-${k}`);
  const markers = { clean: m('clean'), process: m('process'), dotted: m('dotted'), included: m('included'), fsmonitor: m('fsmonitor'), hook: m('hook'), submodule: m('submodule') };
  const hooks = join(dir, 'hooks');
  mkdirSync(hooks);
  writeFileSync(join(hooks, 'post-index-change'), `#!/bin/sh\nenv > '${markers.hook}'\n`);
  chmodSync(join(hooks, 'post-index-change'), 0o755);
  writeFileSync(join(dir, 'included.cfg'), `[filter "inc"]\n\tclean = ${dumper('included', markers.included)}\n`);
  const cfg = [
    `[filter "x"]\n\tclean = ${dumper('clean', markers.clean)}`,
    `[filter "proc"]\n\tprocess = ${dumper('process', markers.process)}`,
    `[filter "a.b=c"]\n\tclean = ${dumper('dotted', markers.dotted)}`,
    `[include]\n\tpath = ${join(dir, 'included.cfg')}`,
    `[core]\n\tfsmonitor = ${dumper('fsmonitor', markers.fsmonitor)}\n\thooksPath = ${hooks}`,
  ];
  writeFileSync(join(repo, '.git', 'config'), `${readFileSync(join(repo, '.git', 'config'), 'utf8')}${cfg.join('\n')}\n`);
  const subCfg = join(repo, '.git', 'modules', 'sub', 'config');
  writeFileSync(subCfg, `${readFileSync(subCfg, 'utf8')}[filter "subx"]\n\tclean = ${dumper('submodule', markers.submodule)}\n`);
  touchAll(repo, Object.keys(files));
  touchAll(join(repo, 'sub'), ['s.txt']);
  return { repo, markers };
}

/** git as a user runs it; the armed scripts do not speak the filter protocol, so it may fail after running them. */
function plainGit(cwd: string, ...args: string[]): void {
  try {
    execFileSync('git', args, { cwd, env: HOME_ENV(), stdio: 'ignore' });
  } catch {
    // the markers, not the exit code, tell what ran
  }
}

const ran = (markers: Record<string, string>): string[] => Object.entries(markers).filter(([, p]) => existsSync(p)).map(([k]) => k);

describe('runSafeGit: no program of the repository, no key', () => {
  it('the armed repository runs every vector under plain git status (the fixture can fail)', () => {
    const { repo, markers } = armed();
    plainGit(repo, 'status', '--porcelain=v2');
    expect(ran(markers).sort()).toEqual(['clean', 'dotted', 'fsmonitor', 'hook', 'included', 'process', 'submodule'].sort());
  });

  it('git status through runSafeGit runs none of them and still reads the branch and commit', async () => {
    const { repo, markers } = armed();
    const out = await runSafeGit(repo, ['status', '--porcelain=v2', '--branch', '--untracked-files=no', '--ignore-submodules=all'], { timeoutMs: 20_000, parentEnv: HOME_ENV() });
    expect(ran(markers)).toEqual([]);
    expect(out).toContain(`# branch.oid ${git(repo, 'rev-parse', 'HEAD')}`);
    expect(out).toContain('# branch.head main');
  });

  it('an index write runs no hook, and a diff no external diff', async () => {
    const { repo, markers } = armed();
    const extdiff = join(dir, 'ran-extdiff');
    git(repo, 'config', 'diff.external', dumper('extdiff', extdiff));
    writeFileSync(join(repo, 'a.txt'), 'changed\n');
    plainGit(repo, 'diff');
    expect(existsSync(extdiff)).toBe(true);
    for (const p of [...Object.values(markers), extdiff]) rmSync(p, { force: true });
    touchAll(repo, ['b.dat', 'c.odd']);
    // a refresh writes the index (post-index-change) and compares content (filters)
    await runSafeGit(repo, ['update-index', '-q', '--refresh'], { timeoutMs: 20_000, parentEnv: HOME_ENV() });
    await runSafeGit(repo, ['diff', '--ignore-submodules=all'], { timeoutMs: 20_000, parentEnv: HOME_ENV() });
    expect(ran({ ...markers, extdiff })).toEqual([]);
    plainGit(repo, 'update-index', '-q', '--refresh');
    expect(ran(markers)).toContain('hook');
  });

  it("git's environment is built from an allow-list: no key of any name, no relative PATH entry", async () => {
    const parent = { PATH: `.:bin::${process.env.PATH ?? ''}`, HOME: '/h', MY_TOKEN: 'tok-0123456789', LLM_ACCESS: 'sk-0123456789', OPENAI_API_KEY: 'sk-x', GIT_DIR: '/elsewhere', EDITOR: 'vim' };
    const env = safeGitEnv(parent);
    expect(Object.keys(env).filter((k) => !k.startsWith('GIT_') && !['PATH', 'HOME', 'LC_ALL'].includes(k))).toEqual([]);
    expect(env.GIT_DIR).toBeUndefined();
    expect((env.PATH ?? '').split(':').every((p) => p.startsWith('/'))).toBe(true);
    // a `git` in the workspace, found through the relative PATH entry `.`, is never the one run
    const repo = join(dir, 'ws');
    mkdirSync(repo);
    const marker = join(dir, 'ran-local-git');
    writeFileSync(join(repo, 'git'), `#!/bin/sh\nenv > '${marker}'\n`);
    chmodSync(join(repo, 'git'), 0o755);
    await runSafeGit(repo, ['status'], { timeoutMs: 20_000, parentEnv: { ...parent, PATH: `.:${process.env.PATH ?? ''}` } });
    expect(existsSync(marker)).toBe(false);
  });

  it('driverOverrides disables every filter the listing names, a subsection with dots, = and spaces included', () => {
    const o = driverOverrides('core.bare\nfilter.lfs.process\nfilter.lfs.required\nfilter.a.b=c d.clean\nfilter.\ndiff.x.textconv\n');
    expect(o).toEqual([
      ['filter.lfs.clean', ''], ['filter.lfs.smudge', ''], ['filter.lfs.process', ''], ['filter.lfs.required', 'false'],
      ['filter.a.b=c d.clean', ''], ['filter.a.b=c d.smudge', ''], ['filter.a.b=c d.process', ''], ['filter.a.b=c d.required', 'false'],
    ]);
  });
});
