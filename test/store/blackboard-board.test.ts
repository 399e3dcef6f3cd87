import { existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { handoff, storeIn, tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());
let b = 0;
const board = (): string => `board-${++b}`;

describe('ordering', () => {
  it('notes written within one second keep write order whatever their random part', async () => {
    let i = 0;
    const s = storeIn(t.dir, { clock: new ManualClock(Date.UTC(2026, 0, 1)), noteRandom: () => (i++ % 2 === 0 ? 'ffff' : '0000') });
    const id = board();
    for (let k = 0; k < 6; k++) await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: `n${k}` }), body: 'b' });
    expect((await s.listNotes(id)).map((m) => m.handoff.conclusion)).toEqual(['n5', 'n4', 'n3', 'n2', 'n1', 'n0']);
  });
});

describe('resolve refs (rule 8)', () => {
  it('ResolveRefsMaxLimit: at most 10 of 20 distinct refs are inlined', async () => {
    const s = storeIn(t.dir);
    const id = board();
    const refs: string[] = [];
    for (let i = 0; i < 20; i++) refs.push((await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: `c${i}` }), body: `distinct body ${i}` })).ref);
    expect(new Set(refs).size).toBe(20);
    const pack = await s.resolveRefs(id, refs, { budgetChars: 1_000_000 });
    expect(pack.notes).toHaveLength(10);
    expect(new Set(pack.notes.map((n) => n.ref)).size).toBe(10);
  });

  it('ResolveRefsAgentRefMissingReportsUnresolved', async () => {
    const s = storeIn(t.dir);
    const id = board();
    await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'repo says' }), body: 'repo body' });
    const pack = await s.resolveRefs(id, ['agent:repo', 'devops_agent', 'repo/20990101T000000Z_abcd-1-000001']);
    expect(pack.notes.map((n) => n.agent)).toEqual(['repo']);
    expect(pack.unresolved).toEqual(['devops_agent', 'repo/20990101T000000Z_abcd-1-000001']);
  });

  it('ContextPackBudgetTruncationKeepsExcerpt', async () => {
    const s = storeIn(t.dir);
    const id = board();
    const m = await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'CONCLUSION' }), body: 'B'.repeat(50_000) });
    const pack = await s.resolveRefs(id, [m.ref], { budgetChars: 1000 });
    expect(pack.notes[0].truncated).toBe(true);
    expect(pack.notes[0].text).toContain('CONCLUSION');
    expect(pack.notes[0].text).toContain(m.ref);
    expect(pack.notes[0].text.length).toBeLessThan(2000);
  });
});

describe('GC (rule 7)', () => {
  const old = (p: string): void => utimesSync(p, new Date(0), new Date(0));

  it('GCSkipsSymlinkInRoot: never follows a symlinked board or note', async () => {
    const root = join(t.dir, 'gc1');
    const outside = join(t.dir, 'outside');
    mkdirSync(join(outside, 'repo'), { recursive: true });
    writeFileSync(join(outside, 'repo', 'precious.md'), 'keep me');
    old(join(outside, 'repo', 'precious.md'));
    mkdirSync(root, { recursive: true });
    symlinkSync(outside, join(root, 'linked-board'));
    const s = storeIn(t.dir, { notesRoot: root });
    const r = await s.gcNotes({ ttlMs: 1000, maxNotesPerBoard: 0 });
    expect(r.skippedSymlinks).toBe(1);
    expect(existsSync(join(outside, 'repo', 'precious.md'))).toBe(true);
  });

  it('TTL removes expired notes only; an unexpired board is never removed', async () => {
    const root = join(t.dir, 'gc2');
    const s = storeIn(t.dir, { notesRoot: root });
    const a = await s.writeNote({ boardId: 'old', agent: 'repo', handoff: handoff(), body: 'x' });
    const keep = await s.writeNote({ boardId: 'mixed', agent: 'repo', handoff: handoff(), body: 'y' });
    const gone = await s.writeNote({ boardId: 'mixed', agent: 'repo', handoff: handoff(), body: 'z' });
    old(join(root, 'old', `${a.ref}.md`));
    old(join(root, 'mixed', `${gone.ref}.md`));
    const r = await s.gcNotes({ ttlMs: 3_600_000, maxNotesPerBoard: 0 });
    expect(r).toMatchObject({ removedNotes: 2, removedBoards: 1 });
    expect(existsSync(join(root, 'old'))).toBe(false);
    expect(existsSync(join(root, 'mixed', `${keep.ref}.md`))).toBe(true);
  });

  it('GCCountCapKeepsBoardDirs and GCCountCapSortsAcrossAgentDirs: oldest by file name go, across agents', async () => {
    const root = join(t.dir, 'gc3');
    const s = storeIn(t.dir, { notesRoot: root });
    const refs: string[] = [];
    // alternate agents so a path sort (agent dir first) would pick the wrong victims
    for (let i = 0; i < 6; i++) refs.push((await s.writeNote({ boardId: 'cap', agent: i % 2 === 0 ? 'zeta' : 'alpha', handoff: handoff(), body: `${i}` })).ref);
    const r = await s.gcNotes({ ttlMs: 0, maxNotesPerBoard: 3 });
    expect(r.removedNotes).toBe(3);
    const left = (await s.listNotes('cap')).map((m) => m.ref).sort();
    expect(left).toEqual(refs.slice(3).sort());
    expect(readdirSync(join(root, 'cap')).sort()).toEqual(['alpha', 'zeta']);
  });
});

describe('collaboration extensions', () => {
  it('mentions: known agents and aliases from the body, unknown @words ignored, union with the explicit list', async () => {
    const s = storeIn(t.dir, { agents: [{ id: 'zhaoyun-data', aliases: ['zhaoyun'] }] });
    const m = await s.writeNote({
      boardId: board(),
      agent: 'director',
      handoff: handoff({ mentions: ['devops'] }),
      body: '@repo please look; @zhaoyun fetch data; mail me at a@b.com; @docs and @nobody are not agents. @coding_agent:',
      mentions: ['chat'],
    });
    expect([...m.handoff.mentions].sort()).toEqual(['chat', 'coding', 'devops', 'repo', 'zhaoyun-data']);
    const back = await s.readNote(m.boardId, m.ref);
    expect([...(back?.meta.handoff.mentions ?? [])].sort()).toEqual(['chat', 'coding', 'devops', 'repo', 'zhaoyun-data']);
  });

  it('triggered_by links an output note to the note that asked for it, and the timeline shows both newest first', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const s = storeIn(t.dir, { clock });
    const id = board();
    const ask = await s.writeNote({ boardId: id, agent: 'director', handoff: handoff({ taskId: 'T1', conclusion: 'ask' }), body: '@repo map the parser' });
    clock.advance(1000);
    await s.recordTimeline('T1', { ts: new Date(clock.now()).toISOString(), type: 'delegation', agent: 'repo', callId: 'c1', phase: 'start' });
    clock.advance(1000);
    const out = await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ taskId: 'T1', conclusion: 'mapped' }), body: 'the map', triggeredBy: ask.ref });
    clock.advance(1000);
    await s.recordTimeline('T1', { ts: new Date(clock.now()).toISOString(), type: 'review', agent: 'director', ref: out.ref, verdict: 'approved' });
    expect(out.handoff.triggeredBy).toBe(ask.ref);
    const page = await s.timeline('T1', { limit: 3 });
    expect(page.entries.map((e) => e.type)).toEqual(['review', 'note', 'delegation']);
    expect(page).toMatchObject({ total: 5, hasMore: true });
    expect(page.entries[1]).toMatchObject({ type: 'note', triggeredBy: ask.ref });
    const rest = await s.timeline('T1', { limit: 3, offset: 3 });
    expect(rest.entries.map((e) => e.type)).toEqual(['mention', 'note']);
    expect(rest.hasMore).toBe(false);
    expect((await s.timeline('nope')).total).toBe(0);
  });
});
