// Pins WorkspaceGuard escapes (.., symlink, absolute, /) and the three grant levels.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceGuard, pathTokens } from '../../src/actors/tools/workspace-guard.js';
import { Grants } from '../../src/actors/tools/grants.js';
import { surfaceFor } from '../../src/actors/tools/profiles.js';
import { memoryProjectGrants, tempDir } from './helpers.js';

const coding = surfaceFor('coding');
const decl = (n: string) => {
  const d = coding.get(n);
  if (!d) throw new Error(`no ${n}`);
  return d;
};
let ws: ReturnType<typeof tempDir>;
let guard: WorkspaceGuard;
beforeEach(() => {
  ws = tempDir();
  guard = new WorkspaceGuard(ws.path);
});
afterEach(() => ws.cleanup());

describe('workspace guard', () => {
  it('`..` escaping the workspace is caught; `..` staying inside is not', async () => {
    expect(await guard.check(decl('create_file'), { path: '../escape.txt' })).toHaveLength(1);
    expect(await guard.check(decl('create_file'), { path: 'a/../b.txt' })).toEqual([]);
  });

  it('absolute paths outside are caught; absolute paths inside are not', async () => {
    expect((await guard.check(decl('edit_file'), { path: '/etc/hosts' }))[0]?.text).toMatch(/outside the workspace/);
    expect(await guard.check(decl('edit_file'), { path: join(ws.path, 'x.ts') })).toEqual([]);
  });

  it('symlinks that escape are caught, also for files that do not exist yet', async () => {
    const out = tempDir('yagent-out-');
    try {
      symlinkSync(out.path, join(ws.path, 'link'));
      expect(await guard.check(decl('create_file'), { path: 'link/new/deep.txt' })).toHaveLength(1);
      mkdirSync(join(ws.path, 'inner'));
      symlinkSync(join(ws.path, 'inner'), join(ws.path, 'link2'));
      expect(await guard.check(decl('create_file'), { path: 'link2/ok.txt' })).toEqual([]);
    } finally {
      out.cleanup();
    }
  });

  it('rename checks both ends', async () => {
    expect(await guard.check(decl('rename_file'), { from: 'a', to: '/tmp/elsewhere' })).toHaveLength(1);
    expect(await guard.check(decl('rename_file'), { from: '/tmp/elsewhere', to: 'a' })).toHaveLength(1);
  });

  it('read-only tools are guarded too: outside reads ask, inside reads do not (issue 10)', async () => {
    expect((await guard.check(decl('read_file'), { path: '/etc/hosts' }))[0]?.text).toMatch(/outside the workspace/);
    expect(await guard.check(decl('list_dir'), { path: '../' })).toHaveLength(1);
    expect(await guard.check(decl('grep'), { pattern: 'x', path: 'src' })).toEqual([]);
  });

  it('run_bash: `/` is always dangerous, outside absolute paths ask, safe system paths do not', async () => {
    const bash = decl('run_bash');
    const check = (command: string, is_dangerous = false) => guard.check(bash, { command, is_dangerous });
    expect((await check('rm -rf /'))[0]?.key).toBe('run_bash:/');
    expect((await check('ls /*'))[0]?.key).toBe('run_bash:/');
    expect(await check('cat /etc/passwd')).toHaveLength(1);
    expect(await check('cp x ../../y')).toHaveLength(1);
    expect(await check('ls ~/')).toHaveLength(1);
    expect(await check('echo hi > /dev/null && /usr/bin/env ls 2>/dev/stderr')).toEqual([]);
    expect(await check(`ls ${ws.path}/src`)).toEqual([]);
    expect(await check('npm test')).toEqual([]);
    expect((await check('npm test', true))[0]?.key).toBe('run_bash:dangerous');
  });

  it('pathTokens sees through quotes, assignments and option values', async () => {
    expect(await pathTokens(`FOO=/opt/x cat "/etc/a" --out=/var/b; ls 'src'`)).toEqual(['/opt/x', '/etc/a', '/var/b']);
  });
});

describe('grants', () => {
  const reasons = [{ key: 'create_file:/outside/dir', path: '/outside/dir', text: 't' }];
  it('yolo allows everything', async () => {
    expect(await new Grants(true).allows(reasons)).toBe(true);
    expect(await new Grants(false).allows(reasons)).toBe(false);
  });
  it('once grants nothing; session grants for this Grants only', async () => {
    const g = new Grants(false);
    await g.record(reasons, 'once');
    expect(await g.allows(reasons)).toBe(false);
    await g.record(reasons, 'session');
    expect(await g.allows(reasons)).toBe(true);
    expect(await new Grants(false).allows(reasons)).toBe(false);
  });
  it('project grants persist through ProjectGrants and survive a new session', async () => {
    const project = memoryProjectGrants();
    await new Grants(false, project).record(reasons, 'project');
    expect(project.keys).toEqual(['create_file:/outside/dir']);
    expect(await new Grants(false, project).allows(reasons)).toBe(true);
  });
  it('a grant on a directory covers paths below it, never siblings, never root', async () => {
    const g = new Grants(false);
    await g.record(reasons, 'session');
    expect(await g.allows([{ key: 'create_file:/outside/dir/a/b.txt', text: '' }])).toBe(true);
    expect(await g.allows([{ key: 'create_file:/outside/dir2', text: '' }])).toBe(false);
    expect(await g.allows([{ key: 'edit_file:/outside/dir/a', text: '' }])).toBe(false);
    await g.record([{ key: 'run_bash:/', text: '' }], 'session');
    expect(await g.allows([{ key: 'run_bash:/etc', text: '' }])).toBe(false);
  });
});
