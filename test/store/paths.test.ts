import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { atomicWrite, tmpPathFor } from '../../src/store/atomic-write.js';
import {
  boardScope, dataRoot, notesRoot, projectIdFor, rolloutFileName, sanitizeAgent, sanitizeBoardId,
} from '../../src/store/data-paths.js';
import { tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());

describe('atomic write', () => {
  it('tmp name ends in .tmp and never matches the final pattern (note tmp is not a note)', () => {
    const tmp = tmpPathFor('/x/board/repo/a.md');
    expect(tmp.endsWith('.tmp')).toBe(true);
    expect(tmp.endsWith('.md')).toBe(false);
    expect(tmpPathFor('/x/a.md')).not.toBe(tmpPathFor('/x/a.md'));
  });

  it('writes the whole file and leaves no tmp file behind', async () => {
    const p = join(t.dir, 'aw', 'f.md');
    await atomicWrite(p, 'hello');
    await atomicWrite(p, 'world');
    expect(readFileSync(p, 'utf8')).toBe('world');
    expect(readdirSync(join(t.dir, 'aw'))).toEqual(['f.md']);
  });

  it('noClobber makes a name collision loud instead of silently replacing the first file', async () => {
    const p = join(t.dir, 'aw2', 'f.md');
    await atomicWrite(p, 'first', { noClobber: true });
    await expect(atomicWrite(p, 'second', { noClobber: true })).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(p, 'utf8')).toBe('first');
    expect(readdirSync(join(t.dir, 'aw2'))).toEqual(['f.md']);
  });
});

describe('paths (blackboard rules 9, 10)', () => {
  it('NotesRootDir: YAGENT_NOTES_ROOT, then YAGENT_HOME/notes, then ~/.yagent/notes', () => {
    expect(notesRoot({ YAGENT_NOTES_ROOT: '/n', YAGENT_HOME: '/h' })).toBe(resolve('/n'));
    expect(notesRoot({ YAGENT_HOME: '/h' })).toBe(join(resolve('/h'), 'notes'));
    expect(notesRoot({}, () => '/home/u')).toBe('/home/u/.yagent/notes');
    expect(dataRoot({}, () => '/home/u')).toBe('/home/u/.yagent');
    expect(dataRoot({ YAGENT_HOME: '/h' })).toBe(resolve('/h'));
  });

  it('NotesRootDir falls back to a CWD-relative notes/ when the home cannot be found (no error)', () => {
    const boom = (): string => {
      throw new Error('no home');
    };
    expect(notesRoot({}, boom)).toBe(resolve('notes'));
    expect(notesRoot({}, () => '')).toBe(resolve('notes'));
  });

  it('SanitizeBoardID: unsafe chars replaced, cut at 128, empty refused instead of an ad-hoc board', () => {
    expect(sanitizeBoardId('a/b c')).toBe('a_b_c');
    expect(sanitizeBoardId('../etc')).toBe('__etc');
    expect(sanitizeBoardId('..')).toBe('_');
    expect(sanitizeBoardId('x'.repeat(300))).toHaveLength(128);
    expect(sanitizeBoardId('')).toBeNull();
    expect(sanitizeBoardId('   ')).toBeNull();
  });

  it('agent dir names are cut at 64 and an empty agent becomes unknown', () => {
    expect(sanitizeAgent('')).toBe('unknown');
    expect(sanitizeAgent('R'.repeat(100))).toHaveLength(64);
    expect(sanitizeAgent('Repo')).toBe('repo');
  });

  it('board scope is the session, else the task; both empty gives no board at all', () => {
    expect(boardScope('s1', 't1')).toBe('s1');
    expect(boardScope('', 't1')).toBe('t1');
    expect(boardScope('', '')).toBeNull();
    expect(boardScope(null, undefined)).toBeNull();
  });

  it('projectID is stable for a workspace and shared by every directory of one git repo', () => {
    const repo = join(t.dir, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    const other = join(t.dir, 'other');
    mkdirSync(other, { recursive: true });
    const id = projectIdFor(repo);
    expect(id).toMatch(/^repo-[0-9a-f]{12}$/);
    expect(projectIdFor(join(repo, 'src', 'deep'))).toBe(id);
    expect(projectIdFor(other)).not.toBe(id);
    expect(projectIdFor(repo)).toBe(id);
  });

  it('rollout file name is {ts}_{session}[_{agent}].jsonl', () => {
    const ms = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(rolloutFileName(ms, 'abc')).toBe('20260102T030405Z_abc.jsonl');
    expect(rolloutFileName(ms, 'abc', 'Repo')).toBe('20260102T030405Z_abc_repo.jsonl');
  });

  it('the helper test dir exists (tests own their data root)', () => {
    writeFileSync(join(t.dir, 'probe'), 'x');
    expect(existsSync(join(t.dir, 'probe'))).toBe(true);
  });
});
