// A store reader says "none" only for a file that is missing: one that exists but cannot be read (here a directory
// where the file should be, or a file where the directory should be) is an error the caller sees, never "no data".
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rolloutDir, timelineDir } from '../../src/store/data-paths.js';
import { sessionsDir } from '../../src/store/sessions.js';
import { taskMemoryPath } from '../../src/store/task-memory.js';
import { storeIn, tempRoot } from './helpers.js';

let t: ReturnType<typeof tempRoot> | undefined;
afterEach(() => t?.cleanup());

/** A store over a fresh root; `block` makes one path unreadable before the store starts. */
function blocked(block: (root: string) => void): ReturnType<typeof storeIn> {
  t = tempRoot('yagent-unreadable-');
  block(t.dir);
  return storeIn(t.dir);
}

/** A plain file where a directory should be. */
function fileAt(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'x');
}

describe('unreadable is not missing', () => {
  it('task memory: load and delete fail, and the path is left as it was', async () => {
    const s = blocked((root) => mkdirSync(taskMemoryPath(root, 'T'), { recursive: true }));
    await expect(s.loadTaskMemory('T')).rejects.toThrow(/EISDIR/);
    await expect(s.deleteTaskMemory('T')).rejects.toThrow(/directory/i);
    expect(existsSync(taskMemoryPath(t?.dir ?? '', 'T'))).toBe(true);
    await s.shutdown();
  });

  it('session ledger: a session that cannot be read is an error, not "no session"; so is a listing', async () => {
    const s = blocked((root) => mkdirSync(join(sessionsDir(root, 'p'), 'S1.jsonl'), { recursive: true }));
    await expect(s.readSession('p', 'S1')).rejects.toThrow(/EISDIR/);
    await expect(s.listSessions('p')).rejects.toThrow(/EISDIR/);
    expect(await s.readSession('p', 'other')).toBeNull();
    await s.shutdown();
  });

  it('session listing: a file where the directory should be is an error, not an empty list', async () => {
    const s = blocked((root) => fileAt(sessionsDir(root, 'p')));
    await expect(s.listSessions('p')).rejects.toThrow(/ENOTDIR/);
    expect(await s.listSessions('q')).toEqual([]);
    await s.shutdown();
  });

  it('timeline: an unreadable file is an error, not an empty timeline', async () => {
    const s = blocked((root) => mkdirSync(join(timelineDir(root), 'T.jsonl'), { recursive: true }));
    await expect(s.timeline('T')).rejects.toThrow(/EISDIR/);
    expect((await s.timeline('other')).entries).toEqual([]);
    await s.shutdown();
  });

  it('rollouts: an unreadable project directory is an error, not "no rollouts"', async () => {
    const s = blocked((root) => fileAt(rolloutDir(root, 'p')));
    await expect(s.listRollouts('p')).rejects.toThrow(/ENOTDIR/);
    expect(await s.listRollouts('q')).toEqual([]);
    await s.shutdown();
  });
});
