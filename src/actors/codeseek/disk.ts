// The index's reads of the disk: a stat that never follows a link, and the text of a file opened without following a
// link or blocking on a FIFO, read into one buffer per thread.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Files over this size are skipped (generated code, data in source form). */
export const MAX_FILE_BYTES = 1 << 20;

export function lstatSafe(abs: string): Stats | null {
  try {
    return lstatSync(abs, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null; // gone since the listing: dropped from the index
  }
}

/** A regular file within the size limit (a symlink, a directory, a device is never indexed). */
export function indexable(st: Stats): boolean {
  return st.isFile() && st.size <= MAX_FILE_BYTES;
}

/** Never follows a symlink (as lstat did) and never waits on a FIFO (non-blocking open; fstat then refuses it). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** One read buffer per thread, grown to the largest file read (at most MAX_FILE_BYTES + 1): no buffer per file. */
let readBuf: Buffer = Buffer.allocUnsafe(64 << 10);

/** The text of an indexable file and the stat of what was read; null when it is not one (or unreadable, or gone).
 *  One fstat and one read into the thread's buffer (`readFileSync(fd)` stats again and allocates a buffer a file). */
export function readFileAt(abs: string): { source: string; st: Stats } | null {
  let fd: number;
  try {
    fd = openSync(abs, OPEN_FLAGS);
  } catch {
    return null; // gone since the listing, unreadable, or a symlink (ELOOP): dropped from the index
  }
  try {
    const st = fstatSync(fd);
    if (!indexable(st)) return null;
    // read to the end: the file may have grown since the fstat; past the limit it is not indexed
    let n = 0;
    for (;;) {
      if (n === readBuf.length) {
        if (n > MAX_FILE_BYTES) return null;
        const bigger = Buffer.allocUnsafe(Math.min(Math.max(readBuf.length * 2, st.size + 1), MAX_FILE_BYTES + 1));
        readBuf.copy(bigger, 0, 0, n);
        readBuf = bigger;
      }
      const got = readSync(fd, readBuf, n, readBuf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    return n > MAX_FILE_BYTES ? null : { source: readBuf.toString('utf8', 0, n), st };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
