// The ONE tmp + rename (or tmp + link) function under src: every durable file write goes here — the store's
// files under the data root and the config write-back (src/runtime/config/persist.ts), which is why it lives
// in src/runtime (below both). New files are 0600 and new directories 0700 unless told otherwise.
import { promises as fsp } from 'node:fs';
import { dirname, basename, join } from 'node:path';

let tmpSeq = 0;

export interface AtomicWriteOptions {
  /** Mode of the written file; default 0600 (data-root files are private). */
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

/** Modes of everything under the data root: owner only. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Writes data to tmp, fsyncs it, renames (or links) it into place, fsyncs the directory. */
export async function atomicWrite(finalPath: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const durable = opts.durable ?? true;
  const dir = dirname(finalPath);
  await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const tmp = tmpPathFor(finalPath);
  const mode = opts.mode ?? PRIVATE_FILE_MODE;
  const fh = await fsp.open(tmp, 'wx', mode);
  try {
    await fh.chmod(mode); // exact, whatever the umask
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
