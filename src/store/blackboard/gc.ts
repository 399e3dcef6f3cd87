// Blackboard GC: lstat only, never follows symlinks; TTL by mtime; per-board count cap sorted by file name.
import { promises as fsp } from 'node:fs';
import { basename, join } from 'node:path';
import type { GcOptions, GcReport } from '../api.js';
import { TMP_SUFFIX } from '../atomic-write.js';
import { NOTE_EXT, noteSortKey } from './note-name.js';

async function entries(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch {
    return [];
  }
}

export async function gcNotes(root: string, opts: GcOptions, now: number): Promise<GcReport> {
  const report: GcReport = { removedNotes: 0, removedBoards: 0, skippedSymlinks: 0 };
  for (const b of await entries(root)) {
    const bdir = join(root, b);
    const bst = await fsp.lstat(bdir).catch(() => null);
    if (!bst) continue;
    if (bst.isSymbolicLink()) {
      report.skippedSymlinks++;
      continue;
    }
    if (!bst.isDirectory()) continue;
    await gcBoard(bdir, opts, now, report);
  }
  return report;
}

async function gcBoard(bdir: string, opts: GcOptions, now: number, report: GcReport): Promise<void> {
  const keep: string[] = [];
  let expiredAny = false;
  const agentDirs: string[] = [];
  for (const a of await entries(bdir)) {
    const adir = join(bdir, a);
    const ast = await fsp.lstat(adir).catch(() => null);
    if (!ast) continue;
    if (ast.isSymbolicLink()) {
      report.skippedSymlinks++;
      continue;
    }
    if (!ast.isDirectory()) continue;
    agentDirs.push(adir);
    for (const n of await entries(adir)) {
      const p = join(adir, n);
      const st = await fsp.lstat(p).catch(() => null);
      if (!st) continue;
      if (st.isSymbolicLink()) {
        report.skippedSymlinks++;
        continue;
      }
      if (!st.isFile()) continue;
      const old = opts.ttlMs > 0 && now - st.mtimeMs > opts.ttlMs;
      if (n.endsWith(TMP_SUFFIX) && old) await fsp.unlink(p).catch(() => undefined); // best-effort: a stale tmp is no note; the next pass retries
      if (!n.endsWith(NOTE_EXT)) continue;
      if (old) {
        await fsp.unlink(p);
        report.removedNotes++;
        expiredAny = true;
      } else keep.push(p);
    }
  }
  if (opts.maxNotesPerBoard > 0 && keep.length > opts.maxNotesPerBoard) {
    // the sort key is the file name (time order), not the path: agent dirs would otherwise decide who dies
    const key = new Map(keep.map((p) => [p, noteSortKey(basename(p))]));
    keep.sort((x, y) => ((key.get(x) ?? '') < (key.get(y) ?? '') ? -1 : (key.get(x) ?? '') > (key.get(y) ?? '') ? 1 : 0));
    for (const p of keep.slice(0, keep.length - opts.maxNotesPerBoard)) {
      await fsp.unlink(p);
      report.removedNotes++;
    }
  }
  // only a board emptied by age goes away, and only through rmdir (never a recursive remove)
  if (expiredAny && keep.length === 0) {
    // rmdir fails when a note landed since the scan (ENOTEMPTY): that dir is kept, which is the point
    for (const adir of agentDirs) await fsp.rmdir(adir).catch(() => undefined);
    if (await fsp.rmdir(bdir).then(() => true, () => false)) report.removedBoards++;
  }
}
