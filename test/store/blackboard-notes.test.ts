import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseHandoff } from '../../src/store/blackboard/front-matter.js';
import { formatIndexLine } from '../../src/store/blackboard/index-build.js';
import { generateNoteStem, NOTE_STEM_RE, parseNoteRef, formatNoteRef } from '../../src/store/blackboard/note-name.js';
import {
  INDEX_HEADER_PREFIX, NO_TRIM, gcOptionsFromConfig, indexOptionsFromConfig, injectIndex, renderHandoff,
} from '../../src/store/client-blackboard.js';
import { storeInputFromConfig } from '../../src/store/client.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import type { GcOptions, NoteMeta } from '../../src/store/api.js';
import { cfg } from '../config/helpers.js';
import { handoff, storeIn, tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());
let b = 0;
const board = (): string => `board-${++b}`;
/** The normalised `[blackboard]` section of a config holding `text` (the config module decides every valve). */
const bb = (text: string, env: Record<string, string> = {}): ReturnType<typeof cfg>['blackboard'] => cfg(`[blackboard]\n${text}`, env).blackboard;
/** What the store service is given for its scheduled GC, from a config holding `text`. */
function gcFromConfig(text: string): GcOptions {
  const gc = storeInputFromConfig(cfg(`[blackboard]\n${text}`)).blackboardGc;
  if (gc === undefined) throw new Error('storeInputFromConfig gave no GC options');
  return gc;
}

describe('note names (rule 13)', () => {
  it('GenerateNoteFilename and ParseNoteRef mirror each other', () => {
    const stem = generateNoteStem(Date.UTC(2026, 4, 6, 7, 8, 9), () => 'beef', 4242);
    expect(stem).toMatch(NOTE_STEM_RE);
    expect(stem.startsWith('20260506T070809Z_beef-4242-')).toBe(true);
    expect(parseNoteRef(formatNoteRef('repo', stem))).toEqual({ agent: 'repo', stem });
    expect(parseNoteRef(`repo/${stem}.md`)).toEqual({ agent: 'repo', stem });
    expect(parseNoteRef('../etc/passwd')).toBeNull();
    expect(parseNoteRef('repo/..')).toBeNull();
  });

  it('GenerateNoteFilenameSurvivesConstantRandomness: the counter alone keeps names unique', () => {
    const names = Array.from({ length: 500 }, () => generateNoteStem(0, () => '0000', 1));
    expect(new Set(names).size).toBe(500);
    expect([...names].sort()).toEqual(names); // fixed width: name order is still creation order
  });

  it('ConcurrentWriteNotesNeverCollide: 200 concurrent writes, constant random part, none lost', async () => {
    const s = storeIn(t.dir, { noteRandom: () => 'abcd' });
    const id = board();
    const metas = await Promise.all(Array.from({ length: 200 }, (_, i) => s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: `c${i}` }), body: `body ${i}` })));
    expect(new Set(metas.map((m) => m.ref)).size).toBe(200);
    const files = readdirSync(join(s.notesRoot, id, 'repo'));
    expect(files.filter((f) => f.endsWith('.md'))).toHaveLength(200);
    const bodies = new Set(files.map((f) => readFileSync(join(s.notesRoot, id, 'repo', f), 'utf8').split('\n---\n')[1]));
    expect(bodies.size).toBe(200);
  });
});

describe('handoff (rules 3, 4, 5)', () => {
  it('RenderDropsFactsNotConclusion', () => {
    const h = handoff({ conclusion: 'C'.repeat(100), facts: ['f1'.repeat(20), 'f2'.repeat(20), 'f3'.repeat(20)] });
    const text = renderHandoff(h, 200);
    expect(text).toContain('C'.repeat(100));
    expect(text).toContain('f1');
    expect(text).toContain('f2');
    expect(text).not.toContain('f3');
    expect(renderHandoff(h, 10)).toContain('C'.repeat(100));
  });

  it('ParseHandoff never fails and never returns nothing: absent, malformed, v1', () => {
    expect(parseHandoff('just a body', 'repo')).toMatchObject({ degraded: 'absent', conclusion: 'just a body', agent: 'repo' });
    expect(parseHandoff('---\n{"version":2,"status":"paused"}\n---\nx', 'repo')).toMatchObject({ degraded: 'malformed' });
    expect(parseHandoff('---\nnever closed', 'repo').degraded).toBe('absent');
    expect(parseHandoff('', 'repo').conclusion.length).toBeGreaterThan(0);
  });

  it('ReadV1NoteSynthesizesHandoff: read-only, marked v1, file untouched', async () => {
    const s = storeIn(t.dir);
    const id = board();
    const dir = join(s.notesRoot, id, 'repo');
    mkdirSync(dir, { recursive: true });
    const p = join(dir, 'old-note.md');
    const text = '---\nagent: repo\nsummary: found the bug in parser.go\n---\nlong v1 body';
    writeFileSync(p, text);
    const before = statSync(p).mtimeMs;
    const n = await s.readNote(id, 'repo/old-note');
    expect(n?.meta.handoff).toMatchObject({ degraded: 'v1', conclusion: 'found the bug in parser.go', status: 'ok' });
    expect(n?.body).toBe('long v1 body');
    expect(readFileSync(p, 'utf8')).toBe(text);
    expect(statSync(p).mtimeMs).toBe(before);
  });

  it('WriteNoteArtifactIDsWinOverHandoffArtifacts', async () => {
    const s = storeIn(t.dir);
    const m = await s.writeNote({ boardId: board(), agent: 'coding', handoff: handoff({ artifacts: ['made-up'] }), body: 'b', systemArtifacts: ['20260101-000000-0123abcd'] });
    expect(m.handoff.artifacts).toEqual(['20260101-000000-0123abcd']);
  });

  it('status vocabulary has no paused: an abandoned delegation writes nothing', async () => {
    const s = storeIn(t.dir);
    const id = board();
    const bad = { ...handoff(), status: 'paused' } as unknown as ReturnType<typeof handoff>;
    await expect(s.writeNote({ boardId: id, agent: 'repo', handoff: bad, body: '' })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(() => readdirSync(join(s.notesRoot, id))).toThrow();
  });

  it('BoardWriterNoteCarriesFullDeliverable: body is the whole deliverable; empty body falls back to the rendered handoff', async () => {
    const s = storeIn(t.dir);
    const id = board();
    const deliverable = 'line\n'.repeat(5000);
    const m = await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'short' }), body: deliverable });
    expect((await s.readNote(id, m.ref))?.body).toBe(deliverable);
    expect(m.bodySize).toBe(deliverable.length);
    const e = await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'only this' }), body: '  ' });
    expect((await s.readNote(id, e.ref))?.body).toContain('only this');
  });

  it('an empty board id is refused, never an ad-hoc board', async () => {
    const s = storeIn(t.dir);
    await expect(s.writeNote({ boardId: '', agent: 'repo', handoff: handoff(), body: 'x' })).rejects.toMatchObject({ code: 'EMPTY_BOARD' });
  });
});

describe('listing and the derived index (rules 1, 2, 11, 12)', () => {
  it('ListNotes: NoteMeta carries no body, newest first', async () => {
    const s = storeIn(t.dir);
    const id = board();
    await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'first' }), body: 'SECRET BODY 1' });
    await s.writeNote({ boardId: id, agent: 'coding', handoff: handoff({ conclusion: 'second' }), body: 'SECRET BODY 2' });
    const list = await s.listNotes(id);
    expect(list.map((m) => m.handoff.conclusion)).toEqual(['second', 'first']);
    expect(list.every((m) => !('body' in m))).toBe(true);
    expect(JSON.stringify(list)).not.toContain('SECRET BODY');
  });

  it('ListNotesAgentFilterUsesAlias: agent:repo, repo_agent and @Repo reach the same notes', async () => {
    const s = storeIn(t.dir);
    const id = board();
    await s.writeNote({ boardId: id, agent: 'repo_agent', handoff: handoff(), body: 'r' });
    await s.writeNote({ boardId: id, agent: 'coding', handoff: handoff(), body: 'c' });
    for (const spelling of ['repo', 'agent:repo', 'repo_agent', '@Repo', 'Repo Agent']) {
      expect((await s.listNotes(id, { agent: spelling })).map((m) => m.agent)).toEqual(['repo']);
    }
  });

  it('BuildIndexEmptyAndValve: absent keys mean defaults, explicit 0 turns the index off or trimming off', async () => {
    expect(indexOptionsFromConfig(undefined)).toEqual({ maxNotes: 12, maxLineChars: 160 });
    expect(indexOptionsFromConfig(bb(''))).toEqual({ maxNotes: 12, maxLineChars: 160 });
    expect(indexOptionsFromConfig(bb('index_max_notes = 0')).maxNotes).toBe(0);
    expect(indexOptionsFromConfig(bb('index_line_chars = 0')).maxLineChars).toBe(NO_TRIM);
    expect(indexOptionsFromConfig(bb('index_max_notes = -3')).maxNotes).toBe(12);
    expect(indexOptionsFromConfig(bb('index_max_notes = 5', { YAGENT_BLACKBOARD: '0' })).maxNotes).toBe(0);
    const s = storeIn(t.dir);
    const id = board();
    expect(await s.buildIndex(id)).toMatchObject({ text: '', total: 0, skipped: 0 });
    await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'x'.repeat(400) }), body: 'b' });
    expect((await s.buildIndex(id, { maxNotes: 0, maxLineChars: 160 })).text).toBe('');
    const untrimmed = await s.buildIndex(id, indexOptionsFromConfig(bb('index_line_chars = 0')));
    expect(untrimmed.text).toContain('x'.repeat(400));
  });

  it('GC valves by key presence: ttl "0" never cleans, an absent ttl is the default week', () => {
    const WEEK = 168 * 3_600_000;
    expect(gcOptionsFromConfig(undefined)).toEqual({ ttlMs: WEEK, maxNotesPerBoard: 200 });
    expect(gcOptionsFromConfig(bb(''))).toEqual({ ttlMs: WEEK, maxNotesPerBoard: 200 });
    expect(gcOptionsFromConfig(bb('ttl = "0"')).ttlMs).toBe(0);
    expect(gcOptionsFromConfig(bb('ttl = 0')).ttlMs).toBe(0);
    expect(gcOptionsFromConfig(bb('ttl = "1h30m"')).ttlMs).toBe(5_400_000);
    expect(gcOptionsFromConfig(bb('max_notes_per_board = 0')).maxNotesPerBoard).toBe(200);
    // a bad duration is the config's error at load, never a silent default in the store
    expect(() => bb('ttl = "soon"')).toThrow(/not a duration/);
  });

  it('ScheduledGcHonoursConfigTtlAndCap: ttl "0" keeps old notes, ttl "1h" removes them, max_notes_per_board caps a board', async () => {
    const survivors = async (blackboard: string): Promise<number> => {
      const s = storeIn(t.dir, { notesRoot: join(t.dir, `sched-${++b}`) });
      const refs: string[] = [];
      for (let i = 0; i < 4; i++) refs.push((await s.writeNote({ boardId: 'B', agent: 'repo', handoff: handoff(), body: `${i}` })).ref);
      // the oldest by name is also made the oldest by age: older than any ttl, so only the ttl decides its fate
      utimesSync(join(s.notesRoot, 'B', `${refs[0]}.md`), new Date(0), new Date(0));
      const gc = s.scheduleGc(createTaskGroup(), gcFromConfig(blackboard));
      await gc?.settled();
      gc?.stop();
      return (await s.listNotes('B')).length;
    };
    expect(await survivors('ttl = "0"')).toBe(4);
    expect(await survivors('ttl = "1h"')).toBe(3);
    expect(await survivors('')).toBe(3);
    expect(await survivors('ttl = "0"\nmax_notes_per_board = 2')).toBe(2);
    expect(await survivors('ttl = "0"\nmax_notes_per_board = 3')).toBe(3);
    expect(await survivors('ttl = "0"\nmax_notes_per_board = 0')).toBe(4);
  });

  it('the blackboard does not import the artifact store (capability is injected, seed rule 6)', () => {
    const dir = join(process.cwd(), 'src', 'store', 'blackboard');
    const offenders = readdirSync(dir).filter((f) => /from '\.\.\/artifacts(\.js)?'/.test(readFileSync(join(dir, f), 'utf8')));
    expect(readdirSync(dir).length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });

  it('index decodes only the newest N and makes unreadable notes visible as skipped', async () => {
    const s = storeIn(t.dir);
    const id = board();
    for (let i = 0; i < 5; i++) await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: `n${i}` }), body: 'b' });
    mkdirSync(join(s.notesRoot, id, 'repo', '99999999T999999Z_ffff-1-999999.md')); // newest name, unreadable
    mkdirSync(join(s.notesRoot, id, 'repo', '00000000T000000Z_0000-1-000000.md')); // oldest name: never decoded, so never skipped
    writeFileSync(join(s.notesRoot, id, 'repo', 'x.md.123.1.tmp'), 'half');
    const idx = await s.buildIndex(id, { maxNotes: 3, maxLineChars: 160 });
    expect(idx).toMatchObject({ listed: 2, total: 7, skipped: 1 });
    expect(idx.text.startsWith(INDEX_HEADER_PREFIX)).toBe(true);
    expect(idx.text).toContain('n4');
    expect(idx.text).not.toContain('n2');
    expect(idx.text).toContain('1 note(s) could not be read');
  });

  it('FormatIndexLineTinyBudgetStillHasRef', () => {
    const m: NoteMeta = { ref: 'repo/20260101T000000Z_abcd-1-000001', boardId: 'b', agent: 'repo', createdAt: '', handoff: handoff({ conclusion: 'a long conclusion '.repeat(10) }), bodySize: 1 };
    for (const budget of [1, 10, 40, 60]) expect(formatIndexLine(m, budget)).toContain(m.ref);
    expect(formatIndexLine(m, 60).length).toBeLessThanOrEqual(60);
  });

  it('the index is transient: rescanned each call, and injection replaces the previous one idempotently', async () => {
    const s = storeIn(t.dir);
    const id = board();
    await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'one' }), body: 'b' });
    const first = await s.buildIndex(id);
    await s.writeNote({ boardId: id, agent: 'repo', handoff: handoff({ conclusion: 'two' }), body: 'b' });
    const second = await s.buildIndex(id);
    expect(first.text).not.toContain('two');
    expect(second.text).toContain('two');
    const base = [{ role: 'system' as const, content: 's' }, { role: 'user' as const, content: 'task' }];
    const once = injectIndex(base, first.text);
    const twice = injectIndex(once, second.text);
    expect(twice.filter((m) => m.content.startsWith(INDEX_HEADER_PREFIX))).toHaveLength(1);
    expect(twice[1].content).toBe(second.text);
    expect(base).toHaveLength(2);
    expect(injectIndex(twice, '')).toEqual(base);
  });

  it('kill switch YAGENT_BLACKBOARD=0 stops write, read, index and GC alike', async () => {
    const s = storeIn(t.dir, { env: { YAGENT_HOME: t.dir, YAGENT_BLACKBOARD: '0' } });
    await expect(s.writeNote({ boardId: 'k', agent: 'repo', handoff: handoff(), body: 'b' })).rejects.toMatchObject({ code: 'BLACKBOARD_DISABLED' });
    expect(await s.listNotes('k')).toEqual([]);
    expect((await s.buildIndex('k')).text).toBe('');
    expect(await s.gcNotes({ ttlMs: 1, maxNotesPerBoard: 1 })).toEqual({ removedNotes: 0, removedBoards: 0, skippedSymlinks: 0 });
  });
});
