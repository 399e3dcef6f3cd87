// Whether a workspace holds any file the code index could cover, without the index: a workspace with none (notes, docs,
// data) needs no codeseek worker (~20 MB of peak RSS) for its blueprint, whose derived layer is then derive(root, []).
// The answer is a superset of files.ts's listing: false only when no file anywhere under the root has an indexed
// extension (git's listing and the walk both only ever drop files); past the bound it is true, as for a large tree.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { NEVER_INDEXED as NEVER, hasIndexedExtension as counts } from './indexed-names.js';

/** Directories read before the walk stops and answers true (a tree this big is not worth walking twice). */
export const PRESENCE_DIRS = 256;

/** True when `root` may hold a file the index covers (a file or link with an indexed extension; dot directories
 *  too, since git lists them), false when it holds none; true past PRESENCE_DIRS directories or when a directory
 *  cannot be read. Breadth first: a repository usually answers from its first directory. */
export async function mayHoldCode(root: string, maxDirs = PRESENCE_DIRS): Promise<boolean> {
  const queue = [root];
  for (let read = 0; read < queue.length; read++) {
    if (read >= maxDirs) return true;
    const dir = queue[read] as string;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return true; // unreadable: git's listing may still name files in it, so the index decides
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        if (!NEVER.has(e.name)) queue.push(join(dir, e.name));
      } else if (counts(e.name)) return true;
    }
  }
  return false;
}
