// Undo points in the store's shadow repository (issue 26): real git, real files, a ManualClock for pruning.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { undoRoot, workspaceKey } from '../../src/store/undo/undo-store.js';
import { storeIn, tempRoot } from './helpers.js';

let t: ReturnType<typeof tempRoot>;
let ws: string;
let home: string;
beforeEach(() => {
  t = tempRoot('yagent-undo-');
  ws = join(t.dir, 'ws');
  home = join(t.dir, 'home');
  mkdirSync(ws);
});
afterEach(() => t.cleanup());

const git = (...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: t.dir } });
const write = (p: string, c: string | Buffer): void => {
  mkdirSync(join(ws, p, '..'), { recursive: true });
  writeFileSync(join(ws, p), c);
};
const read = (p: string): Buffer => readFileSync(join(ws, p));
const BYTES = Buffer.from([0, 1, 2, 255, 10, 13, 10, 0x41]);

describe('undo points', () => {
  it('restores a changed file byte for byte, removes an added one, keeps the user repository untouched, and undo is undoable', async () => {
    git('init', '-q');
    write('b.txt', BYTES);
    write('keep.txt', 'keep\n');
    write('.gitignore', 'ignored.log\n');
    git('add', '.');
    git('commit', '-qm', 'one');
    write('wip.txt', 'uncommitted\n'); // untracked work of the user's is in the snapshot too
    const index = readFileSync(join(ws, '.git', 'index'));
    const store = storeIn(home);
    const p = await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 'task-1', callId: 'call_1', label: 'make a.txt' });
    expect(p?.id).toMatch(/^d-/);
    write('a.txt', 'new\n');
    write('deep/dir/new.txt', 'x');
    write('b.txt', 'rewritten by sed\n');
    write('ignored.log', 'noise');
    await store.undoEnd(ws, p!.id);
    const [item] = await store.undoList(ws);
    expect(item).toMatchObject({ id: p!.id, kind: 'delegation', agent: 'coding', callId: 'call_1' });
    expect([...item!.files].sort()).toEqual(['a.txt', 'b.txt', 'deep/dir/new.txt']); // .gitignore respected

    const dry = await store.undoRestore(ws, p!.id, { dryRun: true });
    expect(dry.ok && dry.diff).toContain('diff --git a/b.txt b/b.txt');
    expect(dry.ok && dry.diff).toContain('-new');
    expect(existsSync(join(ws, 'a.txt'))).toBe(true); // a dry run writes nothing

    const r = await store.undoRestore(ws, 'call_1'); // found by its delegate call id too
    expect(r.ok).toBe(true);
    expect(read('b.txt').equals(BYTES)).toBe(true);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);
    expect(existsSync(join(ws, 'deep'))).toBe(false);
    expect(read('ignored.log').toString()).toBe('noise');
    expect(read('wip.txt').toString()).toBe('uncommitted\n');
    // the user's index, branches and stash are the same
    expect(readFileSync(join(ws, '.git', 'index')).equals(index)).toBe(true);
    expect(git('branch', '--format=%(refname)').trim()).toMatch(/^refs\/heads\/(master|main)$/);
    expect(git('stash', 'list')).toBe('');

    // undo of the undo puts the run's result back
    const list = await store.undoList(ws);
    expect(list[0]).toMatchObject({ kind: 'undo', id: r.ok ? r.undoId : '' });
    expect(list[1]?.undoneBy).toBe(list[0]?.id);
    const again = await store.undoRestore(ws, list[0]!.id);
    expect(again.ok).toBe(true);
    expect(read('b.txt').toString()).toBe('rewritten by sed\n');
    expect(read('a.txt').toString()).toBe('new\n');
    await store.shutdown();
  });

  it('a file changed after the run ended stops the undo, names it and writes nothing', async () => {
    write('b.txt', 'one\n');
    write('c.txt', 'c\n');
    const store = storeIn(home);
    const p = (await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 't' }))!;
    write('b.txt', 'two\n');
    write('a.txt', 'added\n');
    await store.undoEnd(ws, p.id);
    write('b.txt', 'the user edited this\n');
    write('c.txt', 'and this, which the run never touched\n');
    const r = await store.undoRestore(ws, p.id);
    expect(r).toMatchObject({ ok: false, reason: 'changed_since', files: ['b.txt'] });
    expect(!r.ok && r.message).toContain('b.txt');
    expect(read('b.txt').toString()).toBe('the user edited this\n');
    expect(existsSync(join(ws, 'a.txt'))).toBe(true);
    await store.shutdown();
  });

  it('works in a workspace that is no git repository, and everything under the data root is private', async () => {
    write('x.sh', '#!/bin/sh\n');
    chmodSync(join(ws, 'x.sh'), 0o755);
    const store = storeIn(home);
    const p = (await store.undoPoint({ workspace: ws, kind: 'turn', agent: 'director', taskId: 't' }))!;
    chmodSync(join(ws, 'x.sh'), 0o644);
    write('x.sh', 'changed');
    await store.undoEnd(ws, p.id);
    expect((await store.undoRestore(ws, p.id)).ok).toBe(true);
    expect(read('x.sh').toString()).toBe('#!/bin/sh\n');
    expect(statSync(join(ws, 'x.sh')).mode & 0o777).toBe(0o755);
    expect(existsSync(join(ws, '.git'))).toBe(false);
    await store.shutdown();
    expect(execFileSync('find', [home, '-perm', '/077'], { encoding: 'utf8' })).toBe('');
  });

  it('prunes points past keep_days and the oldest past max_mb; pins shared objects (snapshots are incremental)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    for (let i = 0; i < 50; i++) write(`f${i}.txt`, `file ${i}\n`.repeat(50));
    const store = storeIn(home, { clock, undo: { enabled: true, keepDays: 2, maxBytes: 0 } });
    const old = (await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 't' }))!;
    const objects = join(undoRoot(home), workspaceKey(ws), 'git', 'objects');
    const count = (): number => readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d)).reduce((n, d) => n + readdirSync(join(objects, d)).length, 0);
    const first = count();
    write('f1.txt', 'one change\n');
    await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 't' });
    expect(count() - first).toBe(2); // one blob and one tree: the other 49 files are shared
    clock.advance(3 * 24 * 3600 * 1000);
    const fresh = (await store.undoPoint({ workspace: ws, kind: 'turn', agent: 'director', taskId: 't' }))!;
    await store.undoPrune(ws);
    expect((await store.undoList(ws)).map((e) => e.id)).toEqual([fresh.id]);
    expect((await store.undoRestore(ws, old.id)).ok).toBe(false);
    await store.shutdown();
  });

  it('max_mb drops the oldest points until the objects fit', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const store = storeIn(home, { clock, undo: { enabled: true, keepDays: 0, maxBytes: 300 * 1024 } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      write('big.bin', randomBytes(200 * 1024)); // incompressible
      ids.push((await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 't' }))!.id);
      clock.advance(1000);
    }
    await store.undoPrune(ws);
    const left = (await store.undoList(ws)).map((e) => e.id);
    expect(left[0]).toBe(ids[3]);
    expect(left.length).toBeLessThan(4);
    await store.shutdown();
    expect(execFileSync('find', [home, '-perm', '/077'], { encoding: 'utf8' })).toBe(''); // packs too
  });

  it('runs no program the workspace or the user config names (a clean filter in .gitattributes + ~/.gitconfig)', async () => {
    const marker = join(t.dir, 'filter-ran');
    const script = join(t.dir, 'clean.sh');
    writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
    chmodSync(script, 0o755);
    const fakeHome = join(t.dir, 'fake-home');
    mkdirSync(fakeHome);
    writeFileSync(join(fakeHome, '.gitconfig'), `[filter "x"]\n\tclean = ${script}\n\tsmudge = ${script}\n\trequired = true\n`);
    write('.gitattributes', '* filter=x\n');
    write('a.txt', 'one\n');
    const saved = process.env.HOME;
    process.env.HOME = fakeHome; // the store's git reads the user's config from HOME
    try {
      const store = storeIn(home);
      const p = (await store.undoPoint({ workspace: ws, kind: 'delegation', agent: 'coding', taskId: 't' }))!;
      write('a.txt', 'two\n');
      await store.undoEnd(ws, p.id);
      expect((await store.undoRestore(ws, p.id)).ok).toBe(true);
      expect(read('a.txt').toString()).toBe('one\n');
      await store.shutdown();
    } finally {
      process.env.HOME = saved;
    }
    expect(existsSync(marker)).toBe(false);
  });
});
