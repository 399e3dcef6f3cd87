// Issue 10: 200 seeded path strings (`..`, symlinks, dangling links, `~`, `$HOME`, unset variables, absolute,
// unicode, very long) through the real adapter. Oracles that do not reuse the guard's own logic, only what
// happened on disk and what came back:
// - denying: after every write attempt (file tools and run_bash) no byte of it exists outside the workspace; an
//   unasked read resolves (Node's realpath) inside the workspace;
// - approving (a second copy of the tree, since approved writes land): every write that did land outside the
//   workspace, and every read that returned something from outside it, was asked for;
// - -y: the data root's and ~/.ssh's secret never comes back.
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from '../seeded.js';
import { callTool, type ToolResult } from '../../src/actors/tools/adapter.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import { isInside, resolveIn } from '../../src/actors/tools/path-resolve.js';
import { call, makeDeps, tempDir } from './helpers.js';

const SEED = 0x5eed10;
const COUNT = 200;
const SECRET = 'fuzz-secret-sk-0123456789';
/** The content of every file outside the workspace, and the name of a file in every directory outside it. */
const OUTSIDE = 'fuzz-outside-content-5eed';
const OUTSIDE_DIR_MARK = 'fuzz-outside-dir';
const UNSET = 'YAGENT_FUZZ_UNSET'; // never set: bash expands it to nothing
const signal = new AbortController().signal;

interface Fx {
  base: ReturnType<typeof tempDir>;
  ws: string;
  home: string;
}

/** Everything lives under one root, the workspace deep inside it: six `..` still land in the scanned tree. */
function fixture(): Fx {
  const base = tempDir('yagent-fuzz-');
  const deep = join(base.path, 'a', 'b', 'c', 'd', 'e');
  const ws = join(deep, 'ws');
  const home = join(deep, 'home');
  const out = join(deep, 'outside');
  for (const d of [join(ws, 'sub'), out, join(home, '.yagent', 'config'), join(home, '.ssh')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, 'in.txt'), 'inside\n');
  writeFileSync(join(out, 'file.txt'), `${OUTSIDE}\n`);
  // a marker in every directory outside the workspace (zones excepted): a listing that shows it listed outside
  for (let d = out; ; d = dirname(d)) {
    writeFileSync(join(d, OUTSIDE_DIR_MARK), `${OUTSIDE}\n`);
    if (d === base.path) break;
  }
  writeFileSync(join(home, OUTSIDE_DIR_MARK), `${OUTSIDE}\n`);
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
  return { base, ws, home };
}

const SEGMENTS = ['..', '..', '.', 'sub', 'link_out', 'link_in', 'dangle_out', 'dangle_in', 'dangle_chain', 'link_zone', 'link_file_out', 'back', 'outside', 'ws', 'home', '.yagent', '.ssh', 'config', 'ü名-ファイル', 'x'.repeat(120), 'new', 'in.txt', 'file.txt', 'key', 'config.toml', ''];
/** Whole paths that reach the secrets, each a different way in: random segments alone almost never line up into one. */
const secretPaths = (deep: string): string[] => [
  '~/.ssh/key', '$HOME/.ssh/key', '${HOME}/.yagent/config/config.toml', '../home/.ssh', `${deep}/home/.yagent/config/config.toml`,
  'link_zone/config/config.toml', 'link_out/../home/.ssh/key', 'back/link_zone/config', `$${UNSET}${deep}/home/.ssh/key`, '~/.yagent',
];

function paths(ws: string): string[] {
  const r = rng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const deep = dirname(ws);
  const prefixes = ['', '', '', `${ws}/`, `${join(ws, '..', 'outside')}/`, '~/', '~', '$HOME/', '${HOME}/', '../', './', `$${UNSET}${deep}/`, `\${${UNSET}}${ws}/../`];
  const secrets = secretPaths(deep);
  const out: string[] = [];
  while (out.length < COUNT) {
    if (r() < 0.1) {
      out.push(pick(secrets));
      continue;
    }
    const n = 1 + Math.floor(r() * 5);
    const segs = Array.from({ length: n }, () => pick(SEGMENTS));
    const p = pick(prefixes) + segs.join('/') + (r() < 0.4 ? `/f${out.length}.txt` : '');
    if (p !== '' && p !== '~' && !p.includes('//')) out.push(p);
  }
  return out;
}

/** Every file under the root but outside the workspace that holds `marker`. */
function leaked(fx: Fx, marker: string): string[] {
  const wsReal = realpathSync(fx.ws);
  const hits: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== wsReal) walk(p);
      } else if (e.isFile() && readFileSync(p, 'utf8').includes(marker)) hits.push(p);
    }
  };
  walk(fx.base.path);
  return hits;
}

/** Records every question, then answers it. */
const answering = (asked: string[], decision: 'approved' | 'denied'): Authorizer => (req) => {
  asked.push(req.question);
  return Promise.resolve(decision === 'approved' ? { decision, scope: 'once' } : { decision, reason: 'fuzz says no' });
};

/** One call with its own record of questions. */
async function run(fx: Fx, name: string, args: Record<string, unknown>, how: 'approved' | 'denied' | 'yolo'): Promise<{ r: ToolResult; asked: number }> {
  const asked: string[] = [];
  const deps = makeDeps(fx.ws, how === 'yolo' ? { yolo: true } : { authorizer: answering(asked, how) });
  return { r: await callTool(call(name, args), deps, signal), asked: asked.length };
}

/** The parent as text, the way `dirname` would print it (a `$(dirname …)` is a word the check cannot know: asked). */
const parentOf = (p: string): string => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) || '/' : '.');
const writeCommand = (p: string, marker: string): string => `mkdir -p "${parentOf(p)}" 2>/dev/null; echo ${marker} >> ${p}`;
const label = (i: number, p: string): string => `seed ${SEED} path #${i} ${JSON.stringify(p)}`;

function realInside(fx: Fx, p: string): boolean {
  try {
    return isInside(realpathSync(fx.ws), realpathSync(resolveIn(fx.ws, p)));
  } catch {
    return false;
  }
}

function isDir(fx: Fx, p: string): boolean {
  try {
    return statSync(resolveIn(fx.ws, p)).isDirectory();
  } catch {
    return false;
  }
}

function inZone(fx: Fx, p: string): boolean {
  try {
    const real = realpathSync(resolveIn(fx.ws, p.replace(/^\$\{?HOME\}?/, fx.home)));
    return [join(fx.home, '.ssh'), join(fx.home, '.yagent')].some((z) => isInside(realpathSync(z), real));
  } catch {
    return false;
  }
}

/** HOME is each fixture's own while its tests run: the zones, `~` and bash's `$HOME` all follow it. */
const savedHome = process.env.HOME;
let fx: Fx;
/** Approved writes land (also in the zones once a bug lets them): the approved passes get their own trees. */
let approvedFx: Fx;
let readFx: Fx;
beforeAll(() => {
  fx = fixture();
  approvedFx = fixture();
  readFx = fixture();
});
afterAll(() => {
  process.env.HOME = savedHome;
  for (const f of [fx, approvedFx, readFx]) f.base.cleanup();
});
const useHome = (f: Fx): void => void (process.env.HOME = f.home);

describe(`guard fuzz (seed ${SEED}, ${COUNT} paths)`, () => {
  it('the generator covers every kind of path, and some of them reach the secrets', () => {
    useHome(fx);
    const all = paths(fx.ws);
    expect(all).toHaveLength(COUNT);
    for (const kind of ['..', 'dangle_', 'link_', '~/', '$HOME', '${HOME}', `$${UNSET}`, fx.ws, 'ü名', 'x'.repeat(120)]) expect(all.some((p) => p.includes(kind)), kind).toBe(true);
    expect(all.filter((p) => inZone(fx, p)).length).toBeGreaterThanOrEqual(8);
  });

  // 200 real file-tool calls and 200 real bash processes: slower than a unit test on a loaded machine
  it('denied: no write lands outside the workspace (file tools and run_bash)', { timeout: 180_000 }, async () => {
    useHome(fx);
    for (const [i, p] of paths(fx.ws).entries()) {
      await run(fx, 'create_file', { path: p, content: `FUZZ-${i}\n`, overwrite: true }, 'denied');
      // bash expands $HOME, ~ and the unset variable itself: the guard must have seen the same target
      await run(fx, 'run_bash', { command: writeCommand(p, `FUZZ-${i}`), is_dangerous: false }, 'denied');
      expect(leaked(fx, `FUZZ-${i}\n`), label(i, p)).toEqual([]);
    }
  });

  it('approved: every write that landed outside the workspace was asked for', { timeout: 180_000 }, async () => {
    useHome(approvedFx);
    let landedOutside = 0;
    for (const [i, p] of paths(approvedFx.ws).entries()) {
      if (/^~[^/]/.test(p)) continue; // ~user is a real home on this machine: approved writes must stay in the tree
      const file = await run(approvedFx, 'create_file', { path: p, content: `FUZZ-F${i}\n`, overwrite: true }, 'approved');
      const fileOut = leaked(approvedFx, `FUZZ-F${i}\n`);
      if (fileOut.length > 0) expect(file.asked, `create_file ${label(i, p)} wrote ${fileOut.join(', ')}`).toBeGreaterThan(0);
      const bash = await run(approvedFx, 'run_bash', { command: writeCommand(p, `FUZZ-B${i}`), is_dangerous: false }, 'approved');
      const bashOut = leaked(approvedFx, `FUZZ-B${i}\n`);
      if (bashOut.length > 0) expect(bash.asked, `run_bash ${label(i, p)} wrote ${bashOut.join(', ')}`).toBeGreaterThan(0);
      landedOutside += Number(fileOut.length + bashOut.length > 0);
    }
    expect(landedOutside).toBeGreaterThan(20); // the oracle saw real escapes, each of them asked for
  });

  it('approved: every read that returned something from outside the workspace was asked for', { timeout: 180_000 }, async () => {
    useHome(readFx);
    let readOutside = 0;
    const check = (what: string, got: { r: ToolResult; asked: number }): void => {
      expect(got.r.content, what).not.toContain(SECRET);
      if (!got.r.content.includes(OUTSIDE) && !got.r.content.includes(OUTSIDE_DIR_MARK)) return;
      readOutside++;
      expect(got.asked, `${what} read outside without asking`).toBeGreaterThan(0);
    };
    for (const [i, p] of paths(readFx.ws).entries()) {
      check(`read_file ${label(i, p)}`, await run(readFx, 'read_file', { path: p }, 'approved'));
      check(`run_bash cat ${label(i, p)}`, await run(readFx, 'run_bash', { command: `cat ${p} 2>&1; ls -a ${p} 2>&1`, is_dangerous: false }, 'approved'));
      if (!isDir(readFx, p)) continue;
      check(`list_dir ${label(i, p)}`, await run(readFx, 'list_dir', { path: p }, 'approved'));
      check(`grep ${label(i, p)}`, await run(readFx, 'grep', { pattern: 'fuzz-(outside|secret)', path: p }, 'approved'));
    }
    expect(readOutside).toBeGreaterThanOrEqual(10);
  });

  it('denied: an unasked read resolves inside the workspace; with -y the data root and ~/.ssh never come back', { timeout: 180_000 }, async () => {
    useHome(fx);
    for (const [i, p] of paths(fx.ws).entries()) {
      const guarded = await run(fx, 'read_file', { path: p }, 'denied');
      if (guarded.asked === 0 && guarded.r.status === 'ok') expect(realInside(fx, p), `${label(i, p)} read without asking`).toBe(true);
      const yolo = await run(fx, 'read_file', { path: p }, 'yolo');
      expect(yolo.r.content, label(i, p)).not.toContain(SECRET);
      // the shell resolves the word itself ($HOME, ~, link/..): the denied zone must still hold with -y
      const cat = await run(fx, 'run_bash', { command: `cat ${p} 2>&1; ls ${p} 2>&1`, is_dangerous: false }, 'yolo');
      expect(cat.r.content, `run_bash cat ${JSON.stringify(p)}`).not.toContain(SECRET);
      // grep only where the string names a directory: the walk is what must skip the zones
      if (!isDir(fx, p)) continue;
      const grep = await run(fx, 'grep', { pattern: 'fuzz-secret', path: p }, 'yolo');
      expect(grep.r.content, `grep ${JSON.stringify(p)}`).not.toContain(SECRET);
    }
  });
});
