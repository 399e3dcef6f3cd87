// The board index is rescanned per call: whatever the listing cache does, a note written before a call is in it.
import { renameSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { handoff, storeIn, tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());
let b = 0;
const board = (): string => `fresh-${++b}`;
const opts = { maxNotes: 12, maxLineChars: 160 };
const note = (boardId: string, conclusion: string) => ({ boardId, agent: 'repo', handoff: handoff({ conclusion }), body: `${conclusion} body` });
/** Sets a directory's mtime (seconds) and returns what the file system stored. */
const setMtime = (dir: string, sec: number): bigint => (utimesSync(dir, sec, sec), statSync(dir, { bigint: true }).mtimeNs);

describe('index freshness (rescanned per call, seed rule 11)', () => {
  it('IndexListsOwnWriteMadeJustBeforeTheCall', async () => {
    const s = storeIn(t.dir);
    const id = board();
    await s.writeNote(note(id, 'first'));
    expect((await s.buildIndex(id, opts)).total).toBe(1);
    await s.writeNote(note(id, 'second'));
    const idx = await s.buildIndex(id, opts);
    expect(idx.total).toBe(2);
    expect(idx.text).toContain('second');
  });

  it('IndexListsAnotherWritersNoteMadeJustBeforeTheCall', async () => {
    const s = storeIn(t.dir);
    const other = storeIn(t.dir); // another process: its writes never reach this store's cache
    const id = board();
    expect((await s.buildIndex(id, opts)).total).toBe(0);
    await other.writeNote(note(id, 'from elsewhere'));
    expect((await s.buildIndex(id, opts)).text).toContain('from elsewhere');
    await other.writeNote(note(id, 'and again'));
    expect((await s.buildIndex(id, opts)).text).toContain('and again');
  });

  it('IndexTrustsAnOldDirectorySignatureOnlyUntilItChanges', async () => {
    const s = storeIn(t.dir);
    const other = storeIn(t.dir);
    const id = board();
    await other.writeNote(note(id, 'old'));
    const old = Date.now() / 1000 - 60;
    setMtime(join(s.notesRoot, id, 'repo'), old);
    setMtime(join(s.notesRoot, id), old);
    expect((await s.buildIndex(id, opts)).total).toBe(1);
    expect((await s.buildIndex(id, opts)).total).toBe(1);
    await other.writeNote(note(id, 'later note'));
    expect(await s.buildIndex(id, opts)).toMatchObject({ total: 2, text: expect.stringContaining('later note') as string });
  });

  it('IndexSeesAWriteInTheSameClockTickAsTheScan (racy directory mtime)', async () => {
    const s = storeIn(t.dir);
    const other = storeIn(t.dir);
    const id = board();
    await other.writeNote(note(id, 'before'));
    const dir = join(s.notesRoot, id, 'repo');
    // pin the directory's mtime to "now": the scan cannot tell a later write in the same tick apart
    const tick = Date.now() / 1000;
    const pinned = setMtime(dir, tick);
    expect((await s.buildIndex(id, opts)).total).toBe(1);
    await other.writeNote(note(id, 'same tick'));
    expect(setMtime(dir, tick)).toBe(pinned);
    const idx = await s.buildIndex(id, opts);
    expect(idx.total).toBe(2);
    expect(idx.text).toContain('same tick');
  });

  it('a board removed by GC leaves no stale listing behind', async () => {
    // the collecting store runs an hour ahead so every note is past the TTL
    const s = storeIn(t.dir, { clock: new ManualClock(Date.now() + 3_600_000) });
    const id = board();
    await storeIn(t.dir).writeNote(note(id, 'doomed'));
    expect((await s.buildIndex(id, opts)).total).toBe(1);
    await s.gcNotes({ ttlMs: 60_000, maxNotesPerBoard: 0 });
    expect(await s.buildIndex(id, opts)).toMatchObject({ total: 0, text: '' });
  });

  it('a rescan merging new notes into the old listing lists what a fresh store lists: added, removed, moved', async () => {
    const s = storeIn(t.dir);
    const other = storeIn(t.dir);
    const id = board();
    const refs = async (st: typeof s): Promise<string[]> => (await st.listNotes(id)).map((m) => m.ref);
    const same = async (): Promise<void> => expect(await refs(s)).toEqual(await refs(storeIn(t.dir)));
    for (let i = 0; i < 5; i++) await other.writeNote(note(id, `first ${i}`));
    await same();
    // new notes in the known directory and in a new agent's, by another writer and by this store
    await other.writeNote(note(id, 'later'));
    await other.writeNote({ ...note(id, 'from coding'), agent: 'coding' });
    await s.writeNote(note(id, 'own'));
    await same();
    expect((await refs(s))[0]).toMatch(/^repo\//);
    expect(await refs(s)).toHaveLength(8);
    // a note removed and another added since the last scan: the old listing must not keep the removed one
    const [, second] = await s.listNotes(id);
    unlinkSync(join(s.notesRoot, id, (second?.ref ?? '') + '.md'));
    await other.writeNote(note(id, 'after the removal'));
    await same();
    expect(await refs(s)).toHaveLength(8);
    // an agent's directory renamed away
    renameSync(join(s.notesRoot, id, 'coding'), join(s.notesRoot, id, 'moved'));
    await same();
    expect((await refs(s)).filter((r) => r.startsWith('coding/'))).toEqual([]);
  });
});
