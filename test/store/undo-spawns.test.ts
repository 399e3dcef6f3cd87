// Issue 29: the git processes an undo point costs a turn (each one forks the whole multi-threaded store process).
// A stand-in `git` records every command it is asked for, then runs the real one.
import { chmodSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgetKeptListings } from '../../src/runtime/safe-git.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { undoRoot, workspaceKey } from '../../src/store/undo/undo-store.js';
import { storeIn, tempRoot } from './helpers.js';

let t: ReturnType<typeof tempRoot>;
let savedHome: string | undefined;
beforeEach(() => {
  t = tempRoot('yagent-undo-spawns-');
  savedHome = process.env.HOME;
  process.env.HOME = join(t.dir, 'user-home'); // no user config: the listing depends on files of this test only
  mkdirSync(process.env.HOME);
});
afterEach(() => {
  process.env.HOME = savedHome;
  t.cleanup();
});

describe('git spawns of an undo point', () => {
  it('a turn of a later process: add and write-tree at each end (the config listing kept on disk), no prune pass within the hour', async () => {
    const ws = join(t.dir, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    const log = join(t.dir, 'git.log');
    const stand = join(t.dir, 'git.sh');
    writeFileSync(stand, `#!/bin/sh\necho "$2" >> '${log}'\nexec git "$@"\n`); // $1 is --no-pager
    chmodSync(stand, 0o755);
    const root = join(t.dir, 'data');
    const turn = async (): Promise<string[]> => {
      writeFileSync(log, '');
      const tasks = createTaskGroup();
      const store = storeIn(root, { tasks, undoGit: stand });
      const p = (await store.undoPoint({ workspace: ws, kind: 'turn', agent: 'director', taskId: 't' }))!;
      await store.undoEnd(ws, p.id);
      expect(await tasks.drain(60_000)).toEqual([]);
      await store.shutdown();
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    };
    const first = await turn();
    expect(first).toContain('for-each-ref'); // the first turn ever prunes
    const config = join(undoRoot(root), workspaceKey(ws), 'git', 'config');
    utimesSync(config, new Date('2001-01-01'), new Date('2001-01-01')); // written long ago (not racy)
    expect(await turn()).toEqual(['config', 'add', 'write-tree', 'add', 'write-tree']); // the config changed: listed
    forgetKeptListings(); // a new process: the listing comes from the shadow's config-listing.json
    expect(await turn()).toEqual(['add', 'write-tree', 'add', 'write-tree']);
  });
});
