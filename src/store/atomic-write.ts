// The ONE tmp + rename (or tmp + link) function under src: every durable file write of the store goes here.
import { promises as fsp } from 'node:fs';
import { dirname, basename, join } from 'node:path';

let tmpSeq = 0;

export interface AtomicWriteOptions {
  /** File mode for a newly created file (e.g. 0o600 for settings). */
  mode?: number;
  /** Refuse to replace an existing file (hard link instead of rename): a name collision is loud, never a silent loss. */
  noClobber?: boolean;
  /** Skip fsync (benchmarks of the raw path only). */
  durable?: boolean;
}

/** Tmp name for `finalPath`: ends in `.tmp`, so it never matches a final pattern such as `*.md` or an artifact id. */
export function tmpPathFor(finalPath: string): string {
  tmpSeq = (tmpSeq + 1) % 1_000_000_000;
  return join(dirname(finalPath), `${basename(finalPath)}.${process.pid}.${tmpSeq}.tmp`);
}

export const TMP_SUFFIX = '.tmp';

/** Writes data to tmp, fsyncs it, renames (or links) it into place, fsyncs the directory. */
export async function atomicWrite(finalPath: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const durable = opts.durable ?? true;
  const dir = dirname(finalPath);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = tmpPathFor(finalPath);
  const fh = await fsp.open(tmp, 'wx', opts.mode ?? 0o644);
  try {
    await fh.writeFile(data);
    if (durable) await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    if (opts.noClobber) {
      // link() fails with EEXIST instead of replacing: two writers of one name cannot eat each other.
      await fsp.link(tmp, finalPath);
      await fsp.unlink(tmp);
    } else {
      await fsp.rename(tmp, finalPath);
    }
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  if (durable) await fsyncDir(dir);
}

/** Makes a directory entry change (create/rename) durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const dh = await fsp.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
