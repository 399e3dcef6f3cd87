// Which known files may have changed since the last refresh, from one inotify watch per directory that holds an
// indexed file (its ancestors too): a refresh then stats those files only, not every known file. Whenever the watches
// cannot be trusted to have seen every change, `take()` answers null and the refresh stats every known file (as
// without a watch): not Linux, a file system that is not local, a directory renamed or removed, an event without a
// name, a watch error, more watches than allowed, or a burst of events that may have overflowed the kernel's queue.
import { readFileSync, statfsSync, watch, type FSWatcher } from 'node:fs';

/** More directories than this: no watches (inotify watches are a per-user budget shared with editors). */
const MAX_DIRS = 4_096;
/** Local file systems whose changes inotify reports (statfs magic numbers): ext2-4, xfs, btrfs, tmpfs, overlay, zfs,
 *  f2fs, bcachefs. A network or FUSE mount can change under us without an event. */
const LOCAL_FS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0xca451a4e]);

/** Events between two takes past which the kernel's queue may have overflowed (libuv drops IN_Q_OVERFLOW silently):
 *  the queue holds max_queued_events, and an overflow means that many were pending and are then read in one go. */
function burstLimit(): number {
  try {
    const queued = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isFinite(queued) && queued >= 64 ? Math.min(4_096, Math.floor(queued / 2)) : 0;
  } catch {
    return 0; // unknown queue size: the watches are never trusted
  }
}

export class ChangeWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private dirty = new Set<string>();
  private events = 0;
  /** False until the watches cover the known files, and again after anything they may have missed. */
  private sure = false;
  private readonly limit: number;
  /** This root cannot be watched (platform, file system, budget): every refresh stats every known file. */
  private off: boolean;

  constructor(private readonly root: string) {
    this.limit = process.platform === 'linux' ? burstLimit() : 0;
    this.off = this.limit === 0 || !localFs(root);
  }

  /** Directories to watch for these workspace-relative files: each file's directory and its ancestors ('' = root). */
  private static dirsOf(paths: Iterable<string>, into = new Set<string>()): Set<string> {
    for (const p of paths) {
      let slash = p.lastIndexOf('/');
      while (slash > 0) {
        const dir = p.slice(0, slash);
        if (into.has(dir)) break;
        into.add(dir);
        slash = dir.lastIndexOf('/');
      }
      into.add('');
    }
    return into;
  }

  /** Whether the last take can be trusted so far (a refresh may defer its stats until after the listing). */
  get trusted(): boolean {
    return !this.off && this.sure;
  }

  /** The files named by an event since the last take, or null: stat every known file. Starts the next window. */
  take(): Set<string> | null {
    const out = this.trusted && this.events < this.limit ? this.dirty : null;
    this.dirty = new Set();
    this.events = 0;
    return out;
  }

  /** After a null take: drops every watch and watches the directories of `known` afresh (before they are stat'ed). */
  reset(known: Iterable<string>): void {
    this.close();
    if (this.off) return;
    this.sure = true;
    this.cover(known);
    // the caller stats every known file now, after the watches exist: nothing of before is left to check
    this.dirty.clear();
    this.events = 0;
  }

  /** Watches the directories of `paths` not watched yet; the `known` files of a newly watched directory are named in
   *  the next take (a file read or stat'ed before its directory was watched is stat'ed again; a new one is read after). */
  cover(paths: Iterable<string>, known?: ReadonlyMap<string, unknown>): void {
    if (!this.trusted) return;
    const dirs = ChangeWatch.dirsOf(paths);
    const fresh = new Set<string>();
    for (const dir of dirs) {
      if (this.watchers.has(dir)) continue;
      const added = this.watchers.size < MAX_DIRS ? this.add(dir) : 'spent';
      if (added === 'spent') return this.giveUp();
      // a directory gone already holds nothing this refresh reads; listed again later, the cover of that refresh
      // watches it (and names the files it knows there)
      if (added === 'ok') fresh.add(dir);
    }
    if (fresh.size === 0 || known === undefined) return;
    for (const p of known.keys()) {
      const slash = p.lastIndexOf('/');
      if (fresh.has(slash < 0 ? '' : p.slice(0, slash))) this.dirty.add(p);
    }
  }

  private add(dir: string): 'ok' | 'gone' | 'spent' {
    let w: FSWatcher;
    try {
      w = watch(dir === '' ? this.root : `${this.root}/${dir}`, { persistent: false }, (_type, name) => this.event(dir, name));
    } catch (err) {
      // the watch budget is spent (ENOSPC, shared with every program of this user), or the directory is gone already
      return (err as NodeJS.ErrnoException).code === 'ENOSPC' ? 'spent' : 'gone';
    }
    w.on('error', () => {
      this.watchers.delete(dir);
      this.sure = false; // what the watch missed is found by the full stat of the next refresh
    });
    this.watchers.set(dir, w);
    return 'ok';
  }

  private event(dir: string, name: string | Buffer | null): void {
    this.events++;
    if (name === null) {
      this.sure = false;
      return;
    }
    const rel = dir === '' ? String(name) : `${dir}/${String(name)}`;
    // a watched directory renamed or removed: its watch now follows the inode elsewhere, or is gone
    if (rel !== dir && this.watchers.has(rel)) this.sure = false;
    else if (this.dirty.size < this.limit) this.dirty.add(rel);
  }

  /** The watch budget is spent: never watched again, every refresh stats every known file. */
  private giveUp(): void {
    this.close();
    this.sure = false;
    this.off = true;
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}

function localFs(root: string): boolean {
  try {
    return LOCAL_FS.has(Number(statfsSync(root).type));
  } catch {
    return false;
  }
}
