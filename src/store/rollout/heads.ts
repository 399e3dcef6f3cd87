// Rollout heads: the first record (session_meta) of each file, to find a task's Director and delegation rollouts.
import { promises as fsp } from 'node:fs';
import type { RolloutHead } from '../types-session.js';
import { parseRecordLine } from './schema.js';

const HEAD_BYTES = 16 * 1024;

export async function readHead(path: string): Promise<RolloutHead | null> {
  return (await stampedHead(path))?.head ?? null;
}

/** The head and when its file was opened (session_meta's stamp, in ms: file names only carry the second). */
async function stampedHead(path: string): Promise<{ head: RolloutHead; ts: number } | null> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(path, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    const line = buf.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
    const r = parseRecordLine(line);
    return r?.type === 'session_meta' ? { head: { path, meta: r.payload }, ts: r.ts } : null;
  } catch {
    return null;
  } finally {
    await fh?.close();
  }
}

/** Heads of the given files whose session_meta belongs to `taskId`, oldest first: by the stamp, not the file name,
 *  whose second ties sort by a random id (a delegation restarted in the same second must come after its first run). */
export async function headsOfTask(paths: readonly string[], taskId: string): Promise<RolloutHead[]> {
  const heads = await Promise.all(paths.map(stampedHead));
  return heads
    .filter((h): h is { head: RolloutHead; ts: number } => h !== null && h.head.meta.taskId === taskId)
    .sort((a, b) => a.ts - b.ts)
    .map((h) => h.head);
}
