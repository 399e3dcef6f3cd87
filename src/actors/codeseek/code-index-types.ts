// The shapes a CodeIndex hands out: its entries, references into the name maps, refresh reports and the cache image.
import type { CallSite, Decl, FileFacts } from './facts.js';

export interface FileEntry {
  path: string;
  hash: string;
  size: number;
  mtimeMs: number;
  /** When the content was last read (epoch ms). */
  readAt: number;
  facts: FileFacts;
}

export interface DeclRef {
  path: string;
  index: number;
  decl: Decl;
}

export interface CallRef {
  path: string;
  call: CallSite;
  /** The enclosing declaration (null: the file's top level). */
  caller: Decl | null;
}

export interface RefreshReport {
  files: number;
  parsed: number;
  hashed: number;
  reused: number;
  removed: number;
  /** Known files stat'ed to see whether they changed (all of them unless the watches named the changed ones). */
  checked: number;
  ms: number;
  /** Files the second parse thread parsed (parse-pipeline.ts; absent: one thread). */
  offloaded?: number;
}

export interface Progress {
  indexed: number;
  total: number;
  building: boolean;
}

/** The cache file's shape (JSON): entries by path and facts by content hash. */
export interface CacheImage {
  v: number;
  files: [path: string, hash: string, size: number, mtimeMs: number][];
  facts: Record<string, FileFacts>;
}
