// The note index as an agent asks for it before every model call: the store lists the board and says which directory
// signatures that listing stands on; while each still holds (one stat per directory, the store's own revalidation
// rule, ListingCache) the answer is the same, so the call goes without a round trip to the store.
import { statSync } from 'node:fs';
import type { BoardDirSignature, BoardIndex, IndexOptions, StoreApi } from './api.js';

/** True while every directory still has the inode and mtime the index was built from (inode 0: still absent). */
export function boardSignatureHolds(dirs: readonly BoardDirSignature[]): boolean {
  for (const d of dirs) {
    let st;
    try {
      st = statSync(d.path, { bigint: true, throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (d.ino === '0') {
      if (st?.isDirectory() === true) return false;
      continue;
    }
    if (st === undefined || !st.isDirectory() || String(st.ino) !== d.ino || String(st.mtimeNs) !== d.mtimeNs) return false;
  }
  return true;
}

/** `buildIndex` for one run: the store is asked whenever the board may have changed, else its last answer stands. */
export function boardIndexReader(store: Pick<StoreApi, 'buildIndex'>): Pick<StoreApi, 'buildIndex'> {
  let last: { key: string; index: BoardIndex; dirs: readonly BoardDirSignature[] } | null = null;
  return {
    async buildIndex(boardId: string, opts?: IndexOptions): Promise<BoardIndex> {
      const key = JSON.stringify([boardId, opts ?? null]);
      if (last !== null && last.key === key && boardSignatureHolds(last.dirs)) return last.index;
      const index = await store.buildIndex(boardId, opts);
      last = index.dirs !== undefined && index.dirs.length > 0 ? { key, index, dirs: index.dirs } : null;
      return index;
    },
  };
}
