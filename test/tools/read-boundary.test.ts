// Issue 10 observation 1: reads outside the workspace ask (headless: fail closed, nothing read); the data
// root and secret stores are denied even with -y unless `[security] allow_read` lists them; grep, glob and
// list_dir never descend into them. Real files and symlinks; the authorizer records what was asked.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, type ToolResult } from '../../src/actors/tools/adapter.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import { call, makeDeps, tempDir, type DepsOptions } from './helpers.js';

const SECRET = 'sk-live-DO-NOT-LEAK-0123456789';
const OUTSIDE = 'outside-file-content';
const signal = new AbortController().signal;

interface Fixture {
  ws: string;
  out: string;
  home: string;
  dataRoot: string;
  cleanup(): void;
}

/** A workspace, an outside dir, and a HOME holding a data root with a keyed config and ~/.ssh. */
function fixture(): Fixture {
  const base = tempDir('yagent-boundary-');
  const ws = join(base.path, 'ws');
  const out = join(base.path, 'outside');
  const home = join(base.path, 'home');
  const dataRoot = join(home, '.yagent');
  for (const d of [ws, out, join(dataRoot, 'config'), join(home, '.ssh'), join(home, '.aws')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, 'inside.txt'), 'inside\n');
  writeFileSync(join(out, 'secret.txt'), `${OUTSIDE}\n`);
  writeFileSync(join(out, '.env'), `API=${SECRET}\n`);
  writeFileSync(join(dataRoot, 'config', 'config.toml'), `[global.llm.providers.p]\napi_key = "${SECRET}"\n`);
  writeFileSync(join(home, '.ssh', 'id_ed25519'), `${SECRET}\n`);
  writeFileSync(join(home, '.aws', 'credentials'), `${SECRET}\n`);
  symlinkSync(join(out, 'secret.txt'), join(ws, 'linked.txt'));
  symlinkSync(dataRoot, join(ws, 'dataroot-link'));
  symlinkSync(join(home, '.ssh'), join(ws, 'ssh-link'));
  symlinkSync(home, join(ws, 'home-link'));
  return { ws, out, home, dataRoot, cleanup: base.cleanup };
}

let fx: Fixture;
const saved = { HOME: process.env.HOME, YAGENT_HOME: process.env.YAGENT_HOME };
beforeEach(() => {
  fx = fixture();
  process.env.HOME = fx.home;
  delete process.env.YAGENT_HOME;
});
afterEach(() => {
  process.env.HOME = saved.HOME;
  if (saved.YAGENT_HOME === undefined) delete process.env.YAGENT_HOME;
  else process.env.YAGENT_HOME = saved.YAGENT_HOME;
  fx.cleanup();
});

/** An authorizer that approves every question and records it. */
function approving(asked: string[]): Authorizer {
  return (req) => {
    asked.push(req.question);
    return Promise.resolve({ decision: 'approved', scope: 'once' });
  };
}

const run = (name: string, args: unknown, o: DepsOptions = {}): Promise<ToolResult> => callTool(call(name, args), makeDeps(fx.ws, o), signal);
const errKind = (r: ToolResult): string | undefined => (r.status === 'error' ? (JSON.parse(r.content) as { error: { kind: string } }).error.kind : undefined);

describe('reads outside the workspace ask; headless fails closed and reads nothing', () => {
  it.each([
    ['read_file ../outside', 'read_file', () => ({ path: '../outside/secret.txt' })],
    ['read_file absolute', 'read_file', () => ({ path: join(fx.out, 'secret.txt') })],
    ['read_file through a symlink in the workspace', 'read_file', () => ({ path: 'linked.txt' })],
    ['list_dir /', 'list_dir', () => ({ path: '/' })],
    ['list_dir outside', 'list_dir', () => ({ path: fx.out })],
    ['grep outside', 'grep', () => ({ pattern: 'outside', path: fx.out })],
    ['glob outside', 'glob', () => ({ pattern: '*', path: '../outside' })],
  ] as const)('%s', async (_label, tool, args) => {
    const headless = await run(tool, args());
    expect(errKind(headless)).toBe('authorization_unavailable');
    expect(headless.content).not.toContain(OUTSIDE);
    const asked: string[] = [];
    const approved = await run(tool, args(), { authorizer: approving(asked) });
    expect(asked).toHaveLength(1);
    expect(approved.status).toBe('ok');
  });

  it('reads inside the workspace (after resolving symlinks) run without asking', async () => {
    const asked: string[] = [];
    expect((await run('read_file', { path: 'inside.txt' }, { authorizer: approving(asked) })).content).toContain('inside');
    expect((await run('list_dir', { path: fx.ws }, { authorizer: approving(asked) })).status).toBe('ok');
    expect((await run('grep', { pattern: 'inside' }, { authorizer: approving(asked) })).content).toContain('inside.txt');
    expect(asked).toEqual([]);
  });
});

describe('the data root and secret stores are denied, even with -y', () => {
  it.each([
    ['the config under ~/.yagent', 'read_file', () => ({ path: join(fx.dataRoot, 'config', 'config.toml') })],
    ['the config through a symlink in the workspace', 'read_file', () => ({ path: 'dataroot-link/config/config.toml' })],
    ['~/.ssh by tilde', 'read_file', () => ({ path: '~/.ssh/id_ed25519' })],
    ['~/.ssh listed', 'list_dir', () => ({ path: '~/.ssh' })],
    ['~/.aws through a symlinked HOME', 'list_dir', () => ({ path: 'home-link/.aws' })],
    ['a .env outside the workspace', 'read_file', () => ({ path: join(fx.out, '.env') })],
    ['grep in the data root', 'grep', () => ({ pattern: 'sk-', path: fx.dataRoot })],
    ['glob in ~/.ssh', 'glob', () => ({ pattern: '*', path: join(fx.home, '.ssh') })],
  ] as const)('%s', async (_label, tool, args) => {
    const asked: string[] = [];
    for (const o of [{ yolo: true }, { authorizer: approving(asked) }]) {
      const r = await run(tool, args(), o);
      expect(errKind(r)).toBe('access_denied');
      expect(r.content).not.toContain(SECRET);
    }
    expect(asked).toEqual([]);
  });

  it("a process's environment (/proc/*/environ: yagent's own holds the keys) is denied, even with -y", async () => {
    for (const path of ['/proc/self/environ', `/proc/${process.pid}/environ`, `/proc/${process.pid}/task/${process.pid}/environ`]) {
      const r = await run('read_file', { path }, { yolo: true });
      expect(errKind(r), path).toBe('access_denied');
    }
  });

  it('YAGENT_HOME is the data root when set', async () => {
    const alt = join(fx.out, 'alt-home');
    mkdirSync(alt);
    writeFileSync(join(alt, 'k.txt'), SECRET);
    process.env.YAGENT_HOME = alt;
    const r = await run('read_file', { path: join(alt, 'k.txt') }, { yolo: true });
    expect(errKind(r)).toBe('access_denied');
  });

  it('a path listed in allow_read is an ordinary outside read again (asked, then read)', async () => {
    const asked: string[] = [];
    const r = await run('read_file', { path: '~/.ssh/id_ed25519' }, { authorizer: approving(asked), allowRead: ['~/.ssh'] });
    expect(asked).toHaveLength(1);
    expect(r.content).toContain(SECRET);
  });

  it('writes into a denied zone are denied even with -y, allow_read or not', async () => {
    const r = await run('create_file', { path: join(fx.dataRoot, 'planted.txt'), content: 'x' }, { yolo: true, allowRead: [fx.dataRoot] });
    expect(errKind(r)).toBe('access_denied');
  });
});

describe('grep, glob and list_dir never descend into a denied zone', () => {
  it('a search rooted in the workspace does not follow a symlink into the data root or ~/.ssh', async () => {
    for (const o of [{ yolo: true }, {}]) {
      const g = await run('grep', { pattern: 'sk-live' }, o);
      expect(g.content).not.toContain(SECRET);
      const gl = await run('glob', { pattern: '**/*' }, o);
      expect(gl.content).not.toMatch(/config\.toml|id_ed25519/);
    }
  });

  it('a glob pattern cannot climb out of the checked directory (../, absolute)', async () => {
    for (const pattern of ['../outside/*', `${fx.out}/*`, 'a/../../outside/*']) {
      const r = await run('glob', { pattern }, { yolo: true });
      expect(errKind(r), pattern).toBe('pattern_escapes');
      expect(r.content).not.toContain('secret.txt');
    }
  });

  it('an approved search of HOME skips the data root, the secret stores and .env files', async () => {
    writeFileSync(join(fx.home, 'notes.txt'), 'sk-live is the prefix\n');
    // a data root that is not hidden: glob's dot rule cannot be what keeps it out
    const visible = join(fx.home, 'yhome');
    mkdirSync(join(visible, 'config'), { recursive: true });
    writeFileSync(join(visible, 'config', 'config.toml'), `api_key = "${SECRET}"\n`);
    process.env.YAGENT_HOME = visible;
    const g = await run('grep', { pattern: 'sk-live', path: fx.home }, { yolo: true });
    expect(g.content).toContain('notes.txt');
    expect(g.content).not.toContain(SECRET);
    const gl = await run('glob', { pattern: '**/*', path: fx.home }, { yolo: true });
    expect(gl.content).toContain('notes.txt');
    expect(gl.content).not.toMatch(/config\.toml|id_ed25519|credentials/);
    const og = await run('grep', { pattern: 'API', path: fx.out }, { yolo: true });
    expect(og.content).not.toContain(SECRET);
  });
});
