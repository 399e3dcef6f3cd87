// Reading a file that can neither block nor flood the reader (issue 22): only a regular file is opened (a FIFO blocked
// read_file forever; /dev/zero grew it to 5.1 GB), never more than the limit is read (a /proc file says size 0), and
// the file read is the one checked (opened non-blocking, then its descriptor's identity and real path compared).
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isInside } from './path-resolve.js';

export type RegularRead =
  | { kind: 'ok'; buf: Buffer; size: number }
  | { kind: 'not_found' }
  | { kind: 'directory' }
  | { kind: 'not_regular'; what: string }
  | { kind: 'too_large'; size: number }
  | { kind: 'outside'; real: string };

export interface RegularReadOptions {
  maxBytes: number;
  /** At most this many bytes are read synchronously (one agent per worker); more in chunks, cancellable. */
  syncMaxBytes: number;
  signal?: AbortSignal;
  /** The real path of the file read must be inside this real directory. */
  inside?: string;
}

/** What a non-regular file is, in the words of the error the model reads. */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const CHUNK = 1 << 20;
const sameFile = (a: Stats, b: Stats): boolean => a.dev === b.dev && a.ino === b.ino;

/** The real path of what `fd` opened: on Linux the kernel's own answer, elsewhere the path resolved again. */
function realPathOf(fd: number, path: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync.native(path);
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

export async function readRegularFile(path: string, o: RegularReadOptions): Promise<RegularRead> {
  const st = statOrNull(path);
  if (!st) return { kind: 'not_found' };
  if (st.isDirectory()) return { kind: 'directory' };
  // decided before any open: opening a device or a FIFO can itself block or act
  if (!st.isFile()) return { kind: 'not_regular', what: fileKind(st) };
  if (st.size > o.maxBytes) return { kind: 'too_large', size: st.size };
  // non-blocking: had the path been swapped for a FIFO since the stat, the open still returns
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const now = fstatSync(fd);
    if (!now.isFile() || !sameFile(now, st)) return { kind: 'not_regular', what: now.isFile() ? 'a file that changed while it was opened' : fileKind(now) };
    if (o.inside !== undefined) {
      const real = realPathOf(fd, path);
      if (!isInside(o.inside, real)) return { kind: 'outside', real };
    }
    return await readBounded(fd, now.size, o);
  } finally {
    closeSync(fd);
  }
}

/** Up to maxBytes + 1 bytes (a file that grew, or a /proc file of size 0, can hold more than its stat said). */
async function readBounded(fd: number, size: number, o: RegularReadOptions): Promise<RegularRead> {
  const cap = o.maxBytes + 1;
  const parts: Buffer[] = [];
  let total = 0;
  const sync = size > 0 && size <= o.syncMaxBytes;
  for (;;) {
    if (!sync) {
      // a big read yields between chunks so a cancel lands
      await new Promise<void>((r) => setImmediate(r));
      o.signal?.throwIfAborted();
    }
    const buf = Buffer.allocUnsafe(Math.min(sync ? Math.max(size, 1) + 1 : CHUNK, cap - total));
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    parts.push(n === buf.length ? buf : buf.subarray(0, n));
    total += n;
    if (total >= cap) return { kind: 'too_large', size: total };
  }
  return { kind: 'ok', buf: parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, total), size: total };
}
