// Board listings cached per board, revalidated on every call by directory mtimes: as fresh as a rescan, cheap.
import { readdirSync, statSync, type BigIntStats, type Dirent } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { NoteMeta } from '../api.js';
import { NOTE_EXT, noteSortKey } from './note-name.js';

export interface NoteFile {
  agent: string;
  stem: string;
  path: string;
}

/** A directory as it was when listed: any entry added, removed or renamed in it moves its mtime. */
interface DirSig {
  path: string;
  ino: bigint;
  mtimeNs: bigint;
}

interface Listing {
  dirs: DirSig[];
  /** Newest first (time order of the file name). Shared: callers never mutate it. */
  files: readonly NoteFile[];
  /** Some directory changed too close to the scan to trust its mtime: rescan next time. */
  racy: boolean;
  /** Decoded metas by path. Notes are immutable (no-clobber atomic writes), so a listed path keeps its meta. */
  metas: Map<string, NoteMeta>;
}

/** Directory mtimes come from the kernel's coarse clock (a few ms); second-granular file systems report whole seconds. */
function granularityMs(mtimeNs: bigint): number {
  return mtimeNs % 1_000_000_000n === 0n ? 2000 : 50;
}

/** Synchronous stat on purpose: a few directories per call, microseconds each, no thread-pool hop. */
function statDir(path: string): BigIntStats | undefined {
  try {
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    return st?.isDirectory() ? st : undefined;
  } catch {
    return undefined;
  }
}

function unchanged(dirs: readonly DirSig[]): boolean {
  for (const d of dirs) {
    const st = statDir(d.path);
    if (!st || st.ino !== d.ino || st.mtimeNs !== d.mtimeNs) return false;
  }
  return true;
}

/**
 * The store is the single writer in-process and invalidates on its own writes; writers in other processes
 * are caught by the directory signature. A signature is trusted only when the directory's mtime is older
 * than the scan by more than the timestamp granularity (git's "racy" rule): a write landing in the same
 * clock tick right after the scan could otherwise leave the mtime unchanged.
 */
export class ListingCache {
  private readonly boards = new Map<string, Listing>();

  constructor(private readonly wallNow: () => number = Date.now) {}

  invalidate(boardDir?: string): void {
    if (boardDir === undefined) this.boards.clear();
    else this.boards.delete(boardDir);
  }

  files(boardDir: string): readonly NoteFile[] {
    const hit = this.boards.get(boardDir);
    if (hit && !hit.racy && unchanged(hit.dirs)) return hit.files;
    const fresh = this.scan(boardDir, hit);
    if (fresh) this.boards.set(boardDir, fresh);
    else this.boards.delete(boardDir);
    return fresh?.files ?? [];
  }

  cachedMeta(path: string): NoteMeta | undefined {
    return this.boards.get(dirname(dirname(path)))?.metas.get(path);
  }

  rememberMeta(path: string, meta: NoteMeta): void {
    this.boards.get(dirname(dirname(path)))?.metas.set(path, meta);
  }

  private scan(boardDir: string, previous: Listing | undefined): Listing | null {
    const startedMs = this.wallNow();
    // each directory is stat'ed before it is read: a change after the stat moves the mtime we keep
    const bst = statDir(boardDir);
    if (!bst) return null;
    const dirs: DirSig[] = [{ path: boardDir, ino: bst.ino, mtimeNs: bst.mtimeNs }];
    const keyed: { key: string; f: NoteFile }[] = [];
    let entries: Dirent[];
    try {
      entries = readdirSync(boardDir, { withFileTypes: true });
    } catch {
      return null;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const adir = join(boardDir, e.name);
      const ast = statDir(adir);
      if (!ast) continue;
      let names: string[];
      try {
        names = readdirSync(adir);
      } catch {
        continue;
      }
      dirs.push({ path: adir, ino: ast.ino, mtimeNs: ast.mtimeNs });
      for (const name of names) {
        if (!name.endsWith(NOTE_EXT)) continue;
        const stem = name.slice(0, -NOTE_EXT.length);
        // plain concatenation: path.join normalises, which is most of the cost over 10,000 names
        keyed.push({ key: noteSortKey(stem), f: { agent: e.name, stem, path: `${adir}${sep}${name}` } });
      }
    }
    keyed.sort((x, y) => (x.key < y.key ? 1 : x.key > y.key ? -1 : 0));
    const files = keyed.map((k) => k.f);
    const metas = new Map<string, NoteMeta>();
    if (previous) for (const f of files) {
      const m = previous.metas.get(f.path);
      if (m) metas.set(f.path, m);
    }
    const racy = dirs.some((d) => d.mtimeNs >= BigInt(startedMs - granularityMs(d.mtimeNs)) * 1_000_000n);
    return { dirs, files, racy, metas };
  }
}
