// Issue 10 observations 2 and 3: path checks that cannot be fooled. A dangling symlink's target and the nearest
// existing ancestor decide inside/outside; run_bash's heuristic expands $HOME, ${HOME}, ~ and ~user.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool } from '../../src/actors/tools/adapter.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import { WorkspaceGuard } from '../../src/actors/tools/workspace-guard.js';
import { surfaceFor } from '../../src/actors/tools/profiles.js';
import { call, makeDeps, tempDir } from './helpers.js';

const coding = surfaceFor('coding');
const bash = coding.get('run_bash');
const signal = new AbortController().signal;

let base: ReturnType<typeof tempDir>;
let ws: string;
let out: string;
let home: string;
const savedHome = process.env.HOME;
beforeEach(() => {
  base = tempDir('yagent-paths-');
  ws = join(base.path, 'ws');
  out = join(base.path, 'outside');
  home = join(base.path, 'home');
  for (const d of [ws, out, join(home, '.yagent', 'config')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.yagent', 'config', 'config.toml'), 'api_key = "sk-secret-0123456789"\n');
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = savedHome;
  base.cleanup();
});

function recording(asked: string[], approve = false): Authorizer {
  return (req) => {
    asked.push(req.question);
    return Promise.resolve(approve ? { decision: 'approved', scope: 'once' } : { decision: 'denied', reason: 'test says no' });
  };
}

describe('observation 3: a dangling symlink cannot carry a write outside', () => {
  it('create_file on ws/link -> ../outside/new.txt asks, and nothing is created when denied', async () => {
    symlinkSync('../outside/new.txt', join(ws, 'link'));
    const asked: string[] = [];
    const r = await callTool(call('create_file', { path: 'link', content: 'escaped' }), makeDeps(ws, { authorizer: recording(asked) }), signal);
    expect(asked).toHaveLength(1);
    expect(r.status).toBe('error');
    expect(existsSync(join(out, 'new.txt'))).toBe(false);
  });

  it('a chain of dangling links and a link under a missing directory resolve too', async () => {
    symlinkSync(join(ws, 'hop2'), join(ws, 'hop1'));
    symlinkSync('../outside/deep/x.txt', join(ws, 'hop2'));
    symlinkSync(out, join(ws, 'dirlink'));
    const guard = new WorkspaceGuard(ws);
    const create = coding.get('create_file');
    expect(create).toBeDefined();
    if (!create) return;
    expect(await guard.check(create, { path: 'hop1' })).toHaveLength(1);
    expect(await guard.check(create, { path: 'dirlink/missing/deeper/y.txt' })).toHaveLength(1);
    symlinkSync('inner/target.txt', join(ws, 'inlink'));
    expect(await guard.check(create, { path: 'inlink' })).toEqual([]);
  });

  it('a symlink loop is decided, not hung on', async () => {
    symlinkSync(join(ws, 'b'), join(ws, 'a'));
    symlinkSync(join(ws, 'a'), join(ws, 'b'));
    const create = coding.get('create_file');
    if (!create) throw new Error('no create_file');
    const reasons = await new WorkspaceGuard(ws).check(create, { path: 'a' });
    expect(Array.isArray(reasons)).toBe(true);
  });
});

describe('observation 2: the run_bash heuristic expands $HOME, ${HOME}, ~ and ~user', () => {
  const check = (command: string) => {
    if (!bash) throw new Error('no run_bash');
    return new WorkspaceGuard(ws).check(bash, { command, is_dangerous: false });
  };

  it.each([
    'echo x > $HOME/planted.txt',
    'echo x > ${HOME}/planted.txt',
    'echo x > "$HOME"/planted.txt',
    'touch ~/planted.txt',
    `touch ~${userInfo().username}/planted.txt`,
    'cp notes.txt --target-directory=$HOME',
    'cd $HOME',
  ])('%s asks', async (command) => {
    expect(await check(command)).not.toEqual([]);
  });

  it('cp ~/.yagent/config/config.toml . is denied (the data root), even with -y', async () => {
    for (const command of ['cp ~/.yagent/config/config.toml .', 'cp $HOME/.yagent/config/config.toml .', 'cat "${HOME}/.yagent/config/config.toml"']) {
      const r = await callTool(call('run_bash', { command, is_dangerous: false }), makeDeps(ws, { yolo: true }), signal);
      expect(r.status).toBe('error');
      expect(existsSync(join(ws, 'config.toml'))).toBe(false);
    }
  });

  it("reading a process's environment from the shell is denied, even with -y: run_bash's parent (yagent) holds the keys", async () => {
    for (const command of ['tr "\\0" "\\n" < /proc/$PPID/environ', 'cat /proc/self/environ', 'cat /proc/$$/environ', 'cat /proc/*/environ', 'strings /proc/[0-9]*/env*']) {
      const r = await callTool(call('run_bash', { command, is_dangerous: false }), makeDeps(ws, { yolo: true }), signal);
      expect(r.status, command).toBe('error');
      expect(r.content, command).toContain('access_denied');
    }
  });

  it('a real write to $HOME/... is asked for and does not happen when denied', async () => {
    const asked: string[] = [];
    const r = await callTool(call('run_bash', { command: 'echo escaped > $HOME/planted.txt', is_dangerous: false }), makeDeps(ws, { authorizer: recording(asked) }), signal);
    expect(asked).toHaveLength(1);
    expect(r.status).toBe('error');
    expect(existsSync(join(home, 'planted.txt'))).toBe(false);
  });

  it('run_bash words resolve as the kernel does: through symlinks, dangling ones, and `link/..` (found by the fuzz test)', async () => {
    symlinkSync('../outside', join(ws, 'link_out'));
    symlinkSync('../outside/new.txt', join(ws, 'dangle'));
    mkdirSync(join(ws, 'sub'));
    for (const command of ['echo x > link_out/new.txt', 'echo x > dangle', 'echo x > link_out/../escaped.txt', 'cat sub/../../outside/a']) {
      expect(await check(command), command).not.toEqual([]);
    }
    expect(await check('echo x > sub/../inside.txt; cat sub/x')).toEqual([]);
  });

  // bash expands an unset variable (and $1, $@ in `bash -c`) to nothing: `$UNSET/tmp/x` is /tmp/x
  it.each([
    'echo x > $YAGENT_UNSET_VAR/tmp/planted.txt',
    'echo x > ${YAGENT_UNSET_VAR}/tmp/planted.txt',
    'echo x > $1/tmp/planted.txt',
    'echo x > "$@"/tmp/planted.txt',
    'echo x > ${YAGENT_UNSET_VAR:-/tmp}/planted.txt',
    'echo x > ${PWD:+/tmp}/planted.txt',
    'echo x > ${HOME:0:1}tmp/planted.txt',
    "echo x > $'\\x2ftmp'/planted.txt",
  ])('%s asks (an unset, positional or operator expansion cannot hide a path)', async (command) => {
    expect(await check(command)).not.toEqual([]);
  });

  it('a variable the shell does not get (a secret-looking name) expands to nothing, as in the shell', async () => {
    process.env.YAGENT_PATHS_TOKEN = 'inside-dir';
    try {
      const asked: string[] = [];
      const r = await callTool(call('run_bash', { command: `echo escaped > $YAGENT_PATHS_TOKEN${out}/planted.txt`, is_dangerous: false }), makeDeps(ws, { authorizer: recording(asked) }), signal);
      expect(asked).toHaveLength(1);
      expect(r.status).toBe('error');
      expect(existsSync(join(out, 'planted.txt'))).toBe(false);
    } finally {
      delete process.env.YAGENT_PATHS_TOKEN;
    }
  });

  it('variables and ~ that stay inside the workspace do not ask', async () => {
    expect(await check('echo $PWD/x; ls ./src; echo "$FOO" > out.txt; echo ${FOO:-x} $1 "$@" > ${PWD}/y.txt')).toEqual([]);
    expect(await check('ls *; wc -l *.ts src/*.md; rm -f *.o')).toEqual([]); // a glob in the cwd is not the root
    writeFileSync(join(ws, 'notes.txt'), 'n');
    const r = await callTool(call('run_bash', { command: 'cat notes.txt', is_dangerous: false }), makeDeps(ws), signal);
    expect(r.content).toContain('n');
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('n');
  });
});
