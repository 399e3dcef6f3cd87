// Issue 29: with an explicit GIT_DIR (the undo store's shadow) the config listing is kept while a stat of every config
// file git reads is unchanged — one spawn less per git call — and never at the cost of the boundary of issue 22: a
// driver added between two calls is listed (so disabled), an include is listed every time. Real git throughout.
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configListingsSpawned, forgetKeptListings, runSafeGitResult, safeGitSequence, type SafeGitOptions } from '../../src/runtime/safe-git.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'yagent-safe-git-cache-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const OLD = new Date('2001-01-01');

/** A repository whose work tree asks for filter `x` on every file; its config is old (not racy), the driver not yet defined. */
function repo(): { repo: string; config: string; marker: string; o: SafeGitOptions } {
  const home = join(dir, 'home');
  mkdirSync(home);
  const r = join(dir, 'repo');
  mkdirSync(r);
  execFileSync('git', ['init', '-q'], { cwd: r, env: { PATH: process.env.PATH, HOME: home } });
  writeFileSync(join(r, '.gitattributes'), '* filter=x\n');
  writeFileSync(join(r, 'a.txt'), 'one\n');
  const config = join(r, '.git', 'config');
  utimesSync(config, OLD, OLD);
  const o: SafeGitOptions = { timeoutMs: 20_000, parentEnv: { PATH: process.env.PATH, HOME: home }, gitEnv: { GIT_DIR: join(r, '.git'), GIT_WORK_TREE: r } };
  return { repo: r, config, marker: join(dir, 'filter-ran'), o };
}

function driver(marker: string): string {
  const script = join(dir, 'clean.sh');
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
  chmodSync(script, 0o755);
  return `[filter "x"]\n\tclean = ${script}\n\tsmudge = ${script}\n\trequired = true\n`;
}

describe('the kept config listing', () => {
  it('an unchanged config is listed once; a driver added to the config between two snapshots is still disabled', async () => {
    const { repo: r, config, marker, o } = repo();
    const before = configListingsSpawned();
    expect((await safeGitSequence(r, [['add', '-A'], ['write-tree']], o)).every((x) => x.ok)).toBe(true);
    expect((await runSafeGitResult(r, ['write-tree'], o)).ok).toBe(true);
    expect(configListingsSpawned() - before).toBe(1); // the second call used the kept listing
    appendFileSync(config, driver(marker));
    utimesSync(config, OLD, OLD); // the old mtime again: size and ctime still tell
    writeFileSync(join(r, 'a.txt'), 'two, longer\n');
    const rs = await safeGitSequence(r, [['add', '-A'], ['write-tree']], o);
    expect(rs.map((x) => x.ok)).toEqual([true, true]);
    expect(configListingsSpawned() - before).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });

  it('a global config with an include is listed at every call (an included file could add a driver)', async () => {
    const { repo: r, marker, o } = repo();
    const extra = join(dir, 'extra.gitconfig');
    writeFileSync(extra, '[user]\n\tname = t\n');
    const global = join(dir, 'home', '.gitconfig');
    writeFileSync(global, `[include]\n\tpath = ${extra}\n`);
    utimesSync(global, OLD, OLD);
    utimesSync(extra, OLD, OLD);
    const before = configListingsSpawned();
    expect((await runSafeGitResult(r, ['add', '-A'], o)).ok).toBe(true);
    expect((await runSafeGitResult(r, ['write-tree'], o)).ok).toBe(true);
    expect(configListingsSpawned() - before).toBe(2);
    writeFileSync(extra, driver(marker)); // the included file changes; the files git reads directly do not
    utimesSync(extra, OLD, OLD);
    writeFileSync(join(r, 'a.txt'), 'three, longer still\n');
    expect((await runSafeGitResult(r, ['add', '-A'], o)).ok).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('a config written just now is not kept (it could change again within the same timestamp tick)', async () => {
    const { repo: r, config, o } = repo();
    appendFileSync(config, '[user]\n\tname = t\n'); // mtime is now
    const before = configListingsSpawned();
    await runSafeGitResult(r, ['write-tree'], o);
    await runSafeGitResult(r, ['write-tree'], o);
    expect(configListingsSpawned() - before).toBe(2);
  });

  it('a listing kept on disk for the next process is dropped when a config file changes (a new driver is disabled)', async () => {
    const { repo: r, marker, o: base } = repo();
    const o = { ...base, listingFile: join(dir, 'listing.json') };
    const global = join(dir, 'home', '.gitconfig');
    writeFileSync(global, '[user]\n\tname = t\n');
    utimesSync(global, OLD, OLD);
    const before = configListingsSpawned();
    await runSafeGitResult(r, ['write-tree'], o);
    forgetKeptListings(); // a new process
    await runSafeGitResult(r, ['write-tree'], o);
    expect(configListingsSpawned() - before).toBe(1); // the second process read the file
    appendFileSync(global, driver(marker));
    utimesSync(global, OLD, OLD);
    forgetKeptListings();
    writeFileSync(join(r, 'a.txt'), 'four, and longer\n');
    expect((await runSafeGitResult(r, ['add', '-A'], o)).ok).toBe(true);
    expect(configListingsSpawned() - before).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a sequence in one child', () => {
  it('add and write-tree run under one shell, a child of this process: each command\'s output is its own, a failure names its command and ends the row', async () => {
    const { repo: r, o } = repo();
    const log = join(dir, 'git.log');
    const stand = join(dir, 'git.sh');
    writeFileSync(stand, `#!/bin/sh\necho "$2 $PPID" >> '${log}'\nexec git "$@"\n`); // $1 is --no-pager
    chmodSync(stand, 0o755);
    const og: SafeGitOptions = { ...o, git: stand };
    const rs = await safeGitSequence(r, [['add', '-A'], ['write-tree'], ['rev-parse', '--git-dir']], og);
    const alone = await runSafeGitResult(r, ['write-tree'], og);
    expect(rs).toEqual([{ ok: true, stdout: '' }, alone, { ok: true, stdout: `${join(r, '.git')}\n` }]);
    // one fork of this (big, multi-threaded) process for the row: every git of it has the same parent, not us
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['config', 'add', 'write-tree', 'rev-parse', 'write-tree']); // listed once: kept
    const parents = lines.slice(1, 4).map((l) => Number(l.split(' ')[1]));
    expect(new Set(parents).size).toBe(1);
    expect(parents[0]).not.toBe(process.pid);
    const failed = await safeGitSequence(r, [['write-tree'], ['cat-file', '-t', 'no-such-object'], ['write-tree']], og);
    expect(failed).toHaveLength(2);
    expect(failed[0]).toEqual(alone);
    expect(failed[1]).toMatchObject({ ok: false, error: expect.stringMatching(/^git cat-file: .*no-such-object/) });
  });

  it('a row that outlives its timeout is killed whole: the shell and the git it runs', async () => {
    const { repo: r, o } = repo();
    const pidFile = join(dir, 'git.pid');
    const stand = join(dir, 'slow-git.sh');
    // `add` hangs (its pid written first); the listing and everything else is the real git
    writeFileSync(stand, `#!/bin/sh\nif [ "$2" = add ]; then echo $$ > '${pidFile}'; exec sleep 30; fi\nexec git "$@"\n`);
    chmodSync(stand, 0o755);
    const rs = await safeGitSequence(r, [['add', '-A'], ['write-tree']], { ...o, git: stand, timeoutMs: 1_000 });
    expect(rs).toEqual([{ ok: false, error: 'git add: timed out after 1000 ms' }]);
    const pid = readFileSync(pidFile, 'utf8').trim();
    // gone, or a zombie waiting for its reaper: never still running
    let state = 'gone';
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '';
    } catch {
      // reaped already
    }
    expect(['gone', 'Z', 'X']).toContain(state);
  }, 20_000);
});
