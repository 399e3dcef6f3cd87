// Rollout heads: the first record (session_meta) of each file, to find a task's Director and delegation rollouts.
import { promises as fsp } from 'node:fs';
import type { RolloutHead } from '../types-session.js';
import { parseRecordLine } from './schema.js';

const HEAD_BYTES = 16 * 1024;

export async function readHead(path: string): Promise<RolloutHead | null> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(path, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    const line = buf.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
    const r = parseRecordLine(line);
    return r?.type === 'session_meta' ? { path, meta: r.payload } : null;
  } catch {
    return null;
  } finally {
    await fh?.close();
  }
}

/** Heads of the given files whose session_meta belongs to `taskId`, in file (time) order. */
export async function headsOfTask(paths: readonly string[], taskId: string): Promise<RolloutHead[]> {
  const heads = await Promise.all(paths.map(readHead));
  return heads.filter((h): h is RolloutHead => h !== null && h.meta.taskId === taskId);
}
