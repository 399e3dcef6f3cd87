// Repository knowledge under the data root: the code search index cache (`data/codeseek/{key}.json`, a derived cache
// by content hash) and the blueprint's prose (`data/blueprint/{projectId}/blueprint.md` + `revisions/`, 5 kept),
// written under a lock file with an optimistic revision check so that two processes never lose each other's fold.
import { promises as fsp } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { BlueprintDoc, BlueprintWrite, BlueprintWriteResult } from './api.js';
import { atomicWrite, PRIVATE_DIR_MODE } from './atomic-write.js';
import { isMissing, StoreError } from './errors.js';
import { sanitizeSegment } from './data-paths.js';

export const CODE_INDEX_KEY_RE = /^[0-9a-f]{16,64}$/;
/** Revisions of blueprint.md kept (the oldest beyond are removed). */
export const BLUEPRINT_REVISIONS = 5;
const LOCK_STALE_MS = 10_000;
const MANIFESTS = ['package.json', 'go.mod', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'Cargo.toml', 'pom.xml', 'build.gradle', 'Gemfile', 'composer.json', 'CMakeLists.txt', 'Makefile'];

export const codeIndexPath = (root: string, key: string): string => join(root, 'data', 'codeseek', `${key}.json`);
export const blueprintDir = (root: string, projectId: string): string => join(root, 'data', 'blueprint', sanitizeSegment(projectId, 128, 'unknown'));

export async function readCodeIndex(root: string, key: string): Promise<string | null> {
  if (!CODE_INDEX_KEY_RE.test(key)) throw new StoreError('BAD_INPUT', `bad code index key ${key}`);
  try {
    return await fsp.readFile(codeIndexPath(root, key), 'utf8');
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

export async function writeCodeIndex(root: string, key: string, data: string): Promise<void> {
  if (!CODE_INDEX_KEY_RE.test(key)) throw new StoreError('BAD_INPUT', `bad code index key ${key}`);
  await atomicWrite(codeIndexPath(root, key), data);
}

/** Why a workspace may not hold a blueprint (null: it may): `$HOME`, `/`, or neither a repository nor a manifest. */
export async function blueprintRootRefusal(workspace: string, home: string = homedir()): Promise<string | null> {
  const ws = await fsp.realpath(resolve(workspace)).catch(() => resolve(workspace));
  const h = await fsp.realpath(home).catch(() => home);
  if (ws === '/' || ws === resolve('/')) return 'the file system root holds no blueprint';
  if (ws === h) return 'the home directory holds no blueprint';
  for (const marker of ['.git', ...MANIFESTS]) {
    if (await fsp.lstat(join(ws, marker)).then(() => true, () => false)) return null;
  }
  return 'neither a git repository nor a directory with a manifest';
}

const HEADER_RE = /^---\nrevision: (\d+)\nfingerprint: ([^\n]*)\nstale: (true|false)\nupdated: ([^\n]*)\n---\n/;

export function parseBlueprint(text: string): BlueprintDoc | null {
  const m = HEADER_RE.exec(text);
  if (!m) return null;
  return { revision: Number(m[1]), fingerprint: m[2] ?? '', stale: m[3] === 'true', updated: m[4] ?? '', prose: text.slice(m[0].length) };
}

export function renderBlueprint(d: BlueprintDoc): string {
  return `---\nrevision: ${d.revision}\nfingerprint: ${d.fingerprint}\nstale: ${d.stale}\nupdated: ${d.updated}\n---\n${d.prose}`;
}

export async function readBlueprint(root: string, projectId: string): Promise<BlueprintDoc | null> {
  try {
    const doc = parseBlueprint(await fsp.readFile(join(blueprintDir(root, projectId), 'blueprint.md'), 'utf8'));
    if (doc === null) throw new StoreError('CORRUPT', `blueprint.md of ${projectId} has no header`);
    return doc;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** Runs `fn` holding `{dir}/blueprint.lock` (O_EXCL); a lock older than LOCK_STALE_MS is a dead writer's and is taken. */
async function locked<T>(dir: string, now: () => number, fn: () => Promise<T>): Promise<T> {
  await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const lock = join(dir, 'blueprint.lock');
  const start = now();
  for (let attempt = 0; ; attempt++) {
    try {
      const h = await fsp.open(lock, 'wx', 0o600);
      await h.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const st = await fsp.stat(lock).catch(() => null);
      if (st !== null && now() - st.mtimeMs > LOCK_STALE_MS) await fsp.rm(lock, { force: true });
      else if (now() - start > LOCK_STALE_MS) throw new StoreError('BUSY', `blueprint of ${dir} is locked by another writer`);
      // another writer holds it for a few fsyncs: back off 1, 2, 4 … 32 ms
      else await delay(Math.min(32, 2 ** attempt));
    }
  }
  try {
    return await fn();
  } finally {
    await fsp.rm(lock, { force: true });
  }
}

/** Compare-and-swap: the write lands only if the stored revision is still `expectedRevision` (0 = none yet). The
 *  document it replaces goes to `revisions/` first, and only the newest BLUEPRINT_REVISIONS are kept. */
export async function writeBlueprint(root: string, w: BlueprintWrite, now: () => number): Promise<BlueprintWriteResult> {
  const refusal = await blueprintRootRefusal(w.workspace, w.home);
  if (refusal !== null) return { ok: false, reason: 'refused', detail: refusal, revision: 0 };
  const dir = blueprintDir(root, w.projectId);
  return locked(dir, now, async () => {
    const current = await readBlueprint(root, w.projectId);
    const have = current?.revision ?? 0;
    if (have !== w.expectedRevision) return { ok: false, reason: 'conflict', detail: `stored revision is ${have}, expected ${w.expectedRevision}`, revision: have };
    if (current !== null) {
      const revs = join(dir, 'revisions');
      await atomicWrite(join(revs, `${String(current.revision).padStart(6, '0')}.md`), renderBlueprint(current));
      const names = (await fsp.readdir(revs)).filter((n) => /^\d{6}\.md$/.test(n)).sort();
      for (const old of names.slice(0, Math.max(0, names.length - BLUEPRINT_REVISIONS))) await fsp.rm(join(revs, old), { force: true });
    }
    const doc: BlueprintDoc = { revision: have + 1, fingerprint: w.fingerprint, stale: w.stale ?? false, updated: new Date(now()).toISOString(), prose: w.prose };
    await atomicWrite(join(dir, 'blueprint.md'), renderBlueprint(doc));
    return { ok: true, revision: doc.revision, doc };
  });
}
