// Issue 10: 200 seeded path strings (`..`, symlinks, dangling links, `~`, `$HOME`, absolute, unicode, very long)
// through the real adapter. Oracles that do not reuse the guard's own logic: after every write attempt (file tools
// and run_bash) no byte of it exists outside the workspace unless asked; an unasked read resolves (Node's
// realpath) inside the workspace; the data root's secret never comes back, even with -y.
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from '../seeded.js';
import { callTool, type ToolResult } from '../../src/actors/tools/adapter.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import { isInside, resolveIn } from '../../src/actors/tools/paths.js';
import { call, makeDeps, tempDir } from './helpers.js';

const SEED = 0x5eed10;
const COUNT = 200;
const SECRET = 'fuzz-secret-sk-0123456789';
const signal = new AbortController().signal;


let base: ReturnType<typeof tempDir>;
let ws: string;
let home: string;
const savedHome = process.env.HOME;

/** Everything lives under one root, the workspace deep inside it: six `..` still land in the scanned tree. */
function fixture(): void {
  base = tempDir('yagent-fuzz-');
  const deep = join(base.path, 'a', 'b', 'c', 'd', 'e');
  ws = join(deep, 'ws');
  home = join(deep, 'home');
  const out = join(deep, 'outside');
  for (const d of [join(ws, 'sub'), out, join(home, '.yagent', 'config'), join(home, '.ssh')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, 'in.txt'), 'inside\n');
  writeFileSync(join(out, 'file.txt'), 'outside\n');
  writeFileSync(join(home, '.yagent', 'config', 'config.toml'), `api_key = "${SECRET}"\n`);
  writeFileSync(join(home, '.ssh', 'key'), `${SECRET}\n`);
  symlinkSync('../outside', join(ws, 'link_out'));
  symlinkSync('sub', join(ws, 'link_in'));
  symlinkSync('../outside/new_dangle', join(ws, 'dangle_out'));
  symlinkSync('sub/new_dangle_in', join(ws, 'dangle_in'));
  symlinkSync('dangle_out', join(ws, 'dangle_chain'));
  symlinkSync(join(home, '.yagent'), join(ws, 'link_zone'));
  symlinkSync('../outside/file.txt', join(ws, 'link_file_out'));
  symlinkSync('../ws', join(out, 'back'));
  process.env.HOME = home;
}

const SEGMENTS = ['..', '..', '.', 'sub', 'link_out', 'link_in', 'dangle_out', 'dangle_in', 'dangle_chain', 'link_zone', 'link_file_out', 'back', 'outside', 'ws', 'home', '.yagent', '.ssh', 'config', 'ü名-ファイル', 'x'.repeat(120), 'new', 'in.txt', 'file.txt', 'key', 'config.toml', ''];

function paths(): string[] {
  const r = rng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const prefixes = ['', '', '', `${ws}/`, `${join(ws, '..', 'outside')}/`, '~/', '~', '$HOME/', '${HOME}/', '../', './'];
  const out: string[] = [];
  while (out.length < COUNT) {
    const n = 1 + Math.floor(r() * 5);
    const segs = Array.from({ length: n }, () => pick(SEGMENTS));
    const p = pick(prefixes) + segs.join('/') + (r() < 0.4 ? `/f${out.length}.txt` : '');
    if (p !== '' && p !== '~' && !p.includes('//')) out.push(p);
  }
  return out;
}

/** Every file under the root but outside the workspace that holds `marker`. */
function leaked(marker: string): string[] {
  const wsReal = realpathSync(ws);
  const hits: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== wsReal) walk(p);
      } else if (e.isFile() && readFileSync(p, 'utf8').includes(marker)) hits.push(p);
    }
  };
  walk(base.path);
  return hits;
}

const denying = (asked: string[]): Authorizer => (req) => {
  asked.push(req.question);
  return Promise.resolve({ decision: 'denied', reason: 'fuzz says no' });
};

const realInside = (p: string): boolean => {
  try {
    return isInside(realpathSync(ws), realpathSync(resolveIn(ws, p)));
  } catch {
    return false;
  }
};

beforeAll(fixture);
afterAll(() => {
  process.env.HOME = savedHome;
  base.cleanup();
});

describe(`guard fuzz (seed ${SEED}, ${COUNT} paths)`, () => {
  it('the generator covers every kind of path', () => {
    const all = paths();
    expect(all).toHaveLength(COUNT);
    for (const kind of ['..', 'dangle_', 'link_', '~/', '$HOME', '${HOME}', ws, 'ü名', 'x'.repeat(120)]) expect(all.some((p) => p.includes(kind)), kind).toBe(true);
  });

  // 200 real file-tool calls and 200 real bash processes: slower than a unit test on a loaded machine
  it('no write lands outside the workspace without asking (file tools and run_bash)', { timeout: 180_000 }, async () => {
    for (const [i, p] of paths().entries()) {
      const asked: string[] = [];
      const deps = makeDeps(ws, { authorizer: denying(asked) });
      await callTool(call('create_file', { path: p, content: `FUZZ-${i}\n`, overwrite: true }), deps, signal);
      // bash expands $HOME and ~ itself: the guard must have seen the same target
      await callTool(call('run_bash', { command: `mkdir -p "$(dirname ${p})" 2>/dev/null; echo FUZZ-${i} >> ${p}`, is_dangerous: false }), deps, signal);
      expect(leaked(`FUZZ-${i}\n`), `seed ${SEED} path #${i} ${JSON.stringify(p)} (asked ${asked.length})`).toEqual([]);
    }
  });

  it('an unasked read resolves inside the workspace; the data root and ~/.ssh never come back, even with -y', { timeout: 180_000 }, async () => {
    for (const [i, p] of paths().entries()) {
      const asked: string[] = [];
      const guarded: ToolResult = await callTool(call('read_file', { path: p }), makeDeps(ws, { authorizer: denying(asked) }), signal);
      if (asked.length === 0 && guarded.status === 'ok') expect(realInside(p), `seed ${SEED} path #${i} ${JSON.stringify(p)} read without asking`).toBe(true);
      const yolo = await callTool(call('read_file', { path: p }), makeDeps(ws, { yolo: true }), signal);
      expect(yolo.content, `seed ${SEED} path #${i} ${JSON.stringify(p)}`).not.toContain(SECRET);
      // the shell resolves the word itself ($HOME, ~, link/..): the denied zone must still hold with -y
      const cat = await callTool(call('run_bash', { command: `cat ${p} 2>&1; ls ${p} 2>&1`, is_dangerous: false }), makeDeps(ws, { yolo: true }), signal);
      expect(cat.content, `run_bash cat ${JSON.stringify(p)}`).not.toContain(SECRET);
      // grep only where the string names a directory: the walk is what must skip the zones
      if (!isDir(p)) continue;
      const grep = await callTool(call('grep', { pattern: 'fuzz-secret', path: p }), makeDeps(ws, { yolo: true }), signal);
      expect(grep.content, `grep ${JSON.stringify(p)}`).not.toContain(SECRET);
    }
  });
});

function isDir(p: string): boolean {
  try {
    return statSync(resolveIn(ws, p)).isDirectory();
  } catch {
    return false;
  }
}
