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
  /** The sort key of each entry of `files`, same order (a rescan merges new names into them). */
  keys: readonly string[];
  /** Note file names listed per agent directory: a rescan looks each name up instead of re-keying and re-sorting. */
  names: Map<string, Set<string>>;
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

  /** A board this store wrote to is rescanned next call, merging into its old listing; no board: all dropped (GC). */
  invalidate(boardDir?: string): void {
    if (boardDir === undefined) this.boards.clear();
    else {
      const hit = this.boards.get(boardDir);
      if (hit) hit.racy = true;
    }
  }

  files(boardDir: string): readonly NoteFile[] {
    const hit = this.boards.get(boardDir);
    if (hit && !hit.racy && unchanged(hit.dirs)) return hit.files;
    const fresh = this.scan(boardDir, hit);
    if (fresh) this.boards.set(boardDir, fresh);
    else this.boards.delete(boardDir);
    return fresh?.files ?? [];
  }

  /** The directories the last `files(boardDir)` listed, as a reader may check them itself (the same revalidation:
   *  `boardSignatureHolds`); null when that listing is racy. An absent board is its directory with inode 0. */
  trustedDirs(boardDir: string): readonly DirSig[] | null {
    const hit = this.boards.get(boardDir);
    if (!hit) return statDir(boardDir) ? null : [{ path: boardDir, ino: 0n, mtimeNs: 0n }];
    return hit.racy ? null : hit.dirs;
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
    let entries: Dirent[];
    try {
      entries = readdirSync(boardDir, { withFileTypes: true });
    } catch {
      return null;
    }
    const listed: { adir: string; agent: string; names: string[] }[] = [];
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const adir = join(boardDir, e.name);
      const ast = statDir(adir);
      if (!ast) continue;
      try {
        listed.push({ adir, agent: e.name, names: readdirSync(adir) });
      } catch {
        continue;
      }
      dirs.push({ path: adir, ino: ast.ino, mtimeNs: ast.mtimeNs });
    }
    const racy = dirs.some((d) => d.mtimeNs >= BigInt(startedMs - granularityMs(d.mtimeNs)) * 1_000_000n);
    return (previous && added(previous, listed, dirs, racy)) ?? full(listed, dirs, racy, previous);
  }
}

type Listed = { adir: string; agent: string; names: string[] }[];
type Keyed = { key: string; f: NoteFile };

function keyed(adir: string, agent: string, name: string): Keyed {
  const stem = name.slice(0, -NOTE_EXT.length);
  // plain concatenation: path.join normalises, which is most of the cost over 10,000 names
  return { key: noteSortKey(stem), f: { agent, stem, path: `${adir}${sep}${name}` } };
}

const newestFirst = (x: Keyed, y: Keyed): number => (x.key < y.key ? 1 : x.key > y.key ? -1 : 0);

/** Every name keyed and sorted (first listing, or a note or directory went away). */
function full(listed: Listed, dirs: DirSig[], racy: boolean, previous: Listing | undefined): Listing {
  const all: Keyed[] = [];
  const names = new Map<string, Set<string>>();
  for (const { adir, agent, names: ns } of listed) {
    const set = new Set<string>();
    for (const name of ns) {
      if (!name.endsWith(NOTE_EXT)) continue;
      set.add(name);
      all.push(keyed(adir, agent, name));
    }
    names.set(adir, set);
  }
  all.sort(newestFirst);
  const files = all.map((k) => k.f);
  const metas = new Map<string, NoteMeta>();
  if (previous) for (const f of files) {
    const m = previous.metas.get(f.path);
    if (m) metas.set(f.path, m);
  }
  return { dirs, files, keys: all.map((k) => k.key), names, racy, metas };
}

/** Notes are only ever added between most scans (GC and clean-up remove): key just the new names and merge them
 *  into the previous order. null when anything listed before is gone (the full scan drops it). */
function added(previous: Listing, listed: Listed, dirs: DirSig[], racy: boolean): Listing | null {
  if (listed.filter((l) => previous.names.has(l.adir)).length !== previous.names.size) return null;
  const fresh: Keyed[] = [];
  for (const { adir, agent, names: ns } of listed) {
    const set = previous.names.get(adir);
    let seen = 0;
    for (const name of ns) {
      if (!name.endsWith(NOTE_EXT)) continue;
      if (set?.has(name) === true) seen++;
      else fresh.push(keyed(adir, agent, name));
    }
    if (seen !== (set?.size ?? 0)) return null;
  }
  // the previous listing is being replaced: its name sets become this one's
  for (const { adir } of listed) if (!previous.names.has(adir)) previous.names.set(adir, new Set());
  for (const k of fresh) previous.names.get(dirname(k.f.path))?.add(`${k.f.stem}${NOTE_EXT}`);
  if (fresh.length === 0) return { ...previous, dirs, racy };
  fresh.sort(newestFirst);
  const files: NoteFile[] = [];
  const keys: string[] = [];
  let i = 0;
  for (let j = 0; j < fresh.length; j++) {
    const k = fresh[j] as Keyed;
    while (i < previous.keys.length && (previous.keys[i] as string) >= k.key) {
      files.push(previous.files[i] as NoteFile);
      keys.push(previous.keys[i] as string);
      i++;
    }
    files.push(k.f);
    keys.push(k.key);
  }
  for (; i < previous.keys.length; i++) {
    files.push(previous.files[i] as NoteFile);
    keys.push(previous.keys[i] as string);
  }
  return { dirs, files, keys, names: previous.names, racy, metas: previous.metas };
}
