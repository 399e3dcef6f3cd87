// session_meta.git is read by the store from the session's cwd with real git: commit, branch, dirty; null outside a repo.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseGitStatus } from '../../src/store/rollout/identity.js';
import { meta, storeIn, tempRoot } from './helpers.js';

let t: ReturnType<typeof tempRoot>;
beforeEach(() => (t = tempRoot('yagent-git-')));
afterEach(() => t.cleanup());

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();
const firstRecord = (path: string): { type: string; payload: { git?: unknown; cwd: string } } =>
  JSON.parse(readFileSync(path, 'utf8').split('\n')[0] ?? '') as { type: string; payload: { git?: unknown; cwd: string } };

function repo(): string {
  const dir = join(t.dir, 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-q', '-m', 'first');
  git(dir, 'checkout', '-q', '-b', 'feature/x');
  return dir;
}

describe('rollout identity (session_meta.git)', () => {
  it('a session in a git repository records its commit, branch and dirty state, first in the file', async () => {
    const dir = repo();
    const s = storeIn(join(t.dir, 'home'));
    const clean = await s.openRollout(meta({ sessionId: 'clean', cwd: dir }));
    // appended before the git read can have finished: session_meta must still come first
    await s.appendRollout(clean.path, [{ type: 'turn_context', ts: 1, payload: { model: 'm', provider: 'p', cwd: dir, step: 1 } }]);
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    await s.drain(clean.path);
    const dirty = await s.openRollout(meta({ sessionId: 'dirty', cwd: dir }));
    await s.drain(dirty.path);
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(firstRecord(clean.path)).toMatchObject({ type: 'session_meta', payload: { cwd: dir, git: { commit: head, branch: 'feature/x', dirty: false } } });
    expect(readFileSync(clean.path, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['session_meta', 'turn_context']);
    expect(firstRecord(dirty.path).payload.git).toEqual({ commit: head, branch: 'feature/x', dirty: true });
    await s.shutdown();
  });

  it('outside a repository git is null, and a hung git is bounded by the timeout (null)', async () => {
    const plain = join(t.dir, 'plain');
    mkdirSync(plain);
    const s = storeIn(join(t.dir, 'home'));
    const h = await s.openRollout(meta({ sessionId: 'plain', cwd: plain }));
    await s.drain(h.path);
    expect(firstRecord(h.path).payload.git).toBeNull();
    await s.shutdown();

    const hung = join(t.dir, 'hung-git');
    writeFileSync(hung, '#!/bin/sh\nexec sleep 30\n');
    chmodSync(hung, 0o755);
    const slow = storeIn(join(t.dir, 'home2'), { git: { git: hung, timeoutMs: 150 } });
    const h2 = await slow.openRollout(meta({ sessionId: 'hung', cwd: repo() }));
    await slow.drain(h2.path);
    expect(firstRecord(h2.path)).toMatchObject({ type: 'session_meta', payload: { git: null } });
    await slow.shutdown();
  });

  it('outside a repository no git is spawned (no .git above the cwd), inside one it is, even from a subdirectory', async () => {
    const calls = join(t.dir, 'calls');
    const counting = join(t.dir, 'counting-git');
    writeFileSync(counting, `#!/bin/sh\necho "$@" >> '${calls}'\nexec git "$@"\n`);
    chmodSync(counting, 0o755);
    const plain = join(t.dir, 'plain');
    mkdirSync(plain);
    const s = storeIn(join(t.dir, 'home'), { git: { git: counting } });
    const h = await s.openRollout(meta({ sessionId: 'plain', cwd: plain }));
    await s.drain(h.path);
    expect(firstRecord(h.path).payload.git).toBeNull();
    expect(existsSync(calls)).toBe(false);
    const sub = join(repo(), 'sub');
    mkdirSync(sub);
    const r = await s.openRollout(meta({ sessionId: 'sub', cwd: sub }));
    await s.drain(r.path);
    expect(firstRecord(r.path).payload.git).toMatchObject({ branch: 'feature/x', dirty: false });
    expect(readFileSync(calls, 'utf8')).toContain('status');
    await s.shutdown();
  });

  it('porcelain v2: unborn branch has no commit, detached head no branch, any change line is dirty', () => {
    expect(parseGitStatus('# branch.oid (initial)\n# branch.head main\n')).toEqual({ branch: 'main', dirty: false });
    expect(parseGitStatus('# branch.oid abc\n# branch.head (detached)\n1 .M N... 100644 100644 100644 x y a.txt\n')).toEqual({ commit: 'abc', dirty: true });
  });
});
