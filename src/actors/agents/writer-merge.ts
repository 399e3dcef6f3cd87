// Merging a writer's worktree back into the user's working tree (issue 26): a three-way merge per file against the
// state it started from, so edits to different lines of one file both land. All or nothing: when any file conflicts
// (the same lines changed here since, by another delegation or the user), nothing is written and the result is kept
// on `yagent/conflict-<id>`; the report names the files and shows the hunks.
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CONFLICT_BRANCH_PREFIX, git, type WriterTree } from './writer-tree.js';

export type MergeResult = { ok: true; files: string[] } | { ok: false; branch: string; files: string[]; hunks: string };

/** The most of the hunks a report carries (the branch has the whole result). */
const HUNKS_MAX = 6000;

interface Change {
  path: string;
  status: string;
  baseMode: string;
  baseId: string;
  mode: string;
  id: string;
}

/** What the merge writes for one file: the worktree's version, a merged text, or its removal. */
type Plan = { path: string; kind: 'take'; mode: string } | { path: string; kind: 'merged'; text: Buffer; mode: string } | { path: string; kind: 'remove' } | { path: string; kind: 'same' };

const ZERO = /^0+$/;

/** The delegation's result as a commit on its start, and what it changed (`git diff --raw`). */
async function resultOf(t: WriterTree): Promise<{ done: string; changes: Change[] }> {
  await git(t.path, ['add', '-A']);
  const tree = (await git(t.path, ['write-tree'])).trim();
  const done = (await git(t.path, ['commit-tree', tree, '-p', t.base, '-m', `yagent writer ${t.id}: result`])).trim();
  const raw = (await git(t.repo, ['diff', '--raw', '-z', '--no-renames', '--no-abbrev', t.base, done])).split('\0');
  const changes: Change[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const [baseMode, mode, baseId, id, status] = (raw[i] ?? '').replace(/^:/, '').split(' ');
    changes.push({ path: raw[i + 1] ?? '', status: status ?? 'M', baseMode: baseMode ?? '', baseId: baseId ?? '', mode: mode ?? '', id: id ?? '' });
  }
  return { done, changes };
}

/** The blob id git gives these bytes (sha1 repositories); a symbolic link hashes its target. */
async function blobIdOf(file: string): Promise<string | null> {
  const st = await fsp.lstat(file).catch(() => null);
  if (st === null || st.isDirectory()) return null;
  const body = st.isSymbolicLink() ? Buffer.from(await fsp.readlink(file)) : await fsp.readFile(file);
  // crypto loads on the first merge, not when an agent worker boots (test/runtime/thread-bundles.test.ts)
  const { createHash } = await import('node:crypto');
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
}

const binary = (b: Buffer): boolean => b.subarray(0, 8000).includes(0);

/** One file: what to write, or the conflict's text (null = no conflict). */
async function planFile(t: WriterTree, c: Change, scratch: string): Promise<{ plan: Plan } | { conflict: string }> {
  const ours = join(t.repo, c.path);
  const oursId = await blobIdOf(ours);
  const theirsGone = ZERO.test(c.id);
  const baseGone = ZERO.test(c.baseId);
  if (theirsGone ? oursId === null : oursId === c.id) return { plan: { path: c.path, kind: 'same' } };
  if (baseGone ? oursId === null : oursId === c.baseId) return { plan: theirsGone ? { path: c.path, kind: 'remove' } : { path: c.path, kind: 'take', mode: c.mode } };
  if (theirsGone || baseGone || oursId === null) {
    const why = theirsGone ? 'the delegation deleted it, and it changed here since' : baseGone ? 'the delegation created it, and a different one exists here now' : 'the delegation changed it, and it was deleted here since';
    return { conflict: `${c.path}: ${why}` };
  }
  const [o, b, th] = await Promise.all([fsp.readFile(ours), git(t.repo, ['cat-file', 'blob', c.baseId], {}, 'latin1').then((s) => Buffer.from(s, 'latin1')), fsp.readFile(join(t.path, c.path))]);
  if (binary(o) || binary(th)) return { conflict: `${c.path}: binary, changed both here and by the delegation` };
  const mine = join(scratch, 'ours');
  const base = join(scratch, 'base');
  await fsp.writeFile(mine, o, { mode: 0o600 });
  await fsp.writeFile(base, b, { mode: 0o600 });
  const clean = await git(scratch, ['merge-file', '-L', 'your tree', '-L', 'start', '-L', `delegation ${t.id}`, mine, base, join(t.path, c.path)]).then(
    () => true,
    () => false, // exit status = the number of conflicts: the markers are in the file
  );
  const text = await fsp.readFile(mine);
  if (clean) return { plan: { path: c.path, kind: 'merged', text, mode: c.mode } };
  return { conflict: `${c.path}: the same lines changed here and by the delegation\n${markerHunks(text.toString('utf8'))}` };
}

/** The conflict regions of a merged text, with two lines around each. */
function markerHunks(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]?.startsWith('<<<<<<< ')) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('>>>>>>> '));
    const from = Math.max(0, i - 2);
    const to = Math.min(lines.length, (end < 0 ? lines.length : end) + 3);
    out.push(`@@ line ${from + 1}`, ...lines.slice(from, to));
    i = end < 0 ? lines.length : end;
  }
  return out.join('\n');
}

async function apply(t: WriterTree, p: Plan): Promise<void> {
  const to = join(t.repo, p.path);
  if (p.kind === 'same') return;
  if (p.kind === 'remove') return void (await fsp.rm(to, { force: true }));
  await fsp.mkdir(dirname(to), { recursive: true });
  const from = join(t.path, p.path);
  if (p.mode === '120000') {
    const target = await fsp.readlink(from);
    await fsp.rm(to, { force: true });
    return void (await fsp.symlink(target, to));
  }
  const mode = p.mode === '100755' ? 0o755 : 0o644;
  if (p.kind === 'merged') await fsp.writeFile(to, p.text);
  else await fsp.copyFile(from, to);
  // the bits git tracks (x or not), nothing else of the user's umask changed
  const st = await fsp.stat(to);
  if ((st.mode & 0o111) !== 0 !== (mode === 0o755)) await fsp.chmod(to, mode === 0o755 ? st.mode | 0o111 : st.mode & ~0o111);
}

/** Commits what the delegation left and merges it into the user's working tree (never its index or branches). */
export async function mergeWriterTree(t: WriterTree): Promise<MergeResult> {
  const { done, changes } = await resultOf(t);
  const files = changes.map((c) => c.path);
  if (changes.length === 0) return { ok: true, files };
  const scratch = await fsp.mkdtemp(join(tmpdir(), 'yagent-wt-merge-'));
  try {
    const plans: Plan[] = [];
    const conflicts: string[] = [];
    const conflicted: string[] = [];
    for (const c of changes) {
      if (c.mode === '160000' || c.baseMode === '160000') {
        conflicts.push(`${c.path}: a submodule, not merged`);
        conflicted.push(c.path);
        continue;
      }
      const r = await planFile(t, c, scratch);
      if ('plan' in r) {
        plans.push(r.plan);
        continue;
      }
      conflicts.push(r.conflict);
      conflicted.push(c.path);
    }
    if (conflicts.length > 0) {
      const branch = `${CONFLICT_BRANCH_PREFIX}${t.id}`;
      await git(t.repo, ['branch', '-f', branch, done]);
      const hunks = conflicts.join('\n\n');
      return { ok: false, branch, files: conflicted, hunks: hunks.length > HUNKS_MAX ? `${hunks.slice(0, HUNKS_MAX)}\n… (cut; the whole result is on ${branch})` : hunks };
    }
    for (const p of plans) await apply(t, p);
    return { ok: true, files };
  } finally {
    await fsp.rm(scratch, { recursive: true, force: true });
  }
}
