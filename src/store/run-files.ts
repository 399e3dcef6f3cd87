// Small private files under `{root}/run/` (the supervisor's discovery file): atomic, 0600 in a 0700 directory.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { atomicWrite, TMP_SUFFIX } from './atomic-write.js';
import { StoreError } from './errors.js';

export const runDir = (root: string): string => join(root, 'run');

/** One plain file name: no separators, no leading dot, never a tmp name (those are the atomic write's own). */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_BYTES = 64 * 1024;

function runPath(root: string, name: string): string {
  if (!NAME_RE.test(name) || name.endsWith(TMP_SUFFIX)) throw new StoreError('BAD_PATH', `run file name not allowed: ${JSON.stringify(name)}`);
  return join(runDir(root), name);
}

/** Writes the file atomically with mode 0600; the directory is created (or tightened) to 0700. Returns the path. */
export async function writeRunFile(root: string, name: string, content: string): Promise<string> {
  const path = runPath(root, name);
  if (typeof content !== 'string' || Buffer.byteLength(content) > MAX_BYTES) throw new StoreError('BAD_INPUT', `run file content must be a string of at most ${MAX_BYTES} bytes`);
  const dir = runDir(root);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  // it may predate us with a wider mode; the file can hold a bearer token
  await fsp.chmod(dir, 0o700);
  // the tmp file is created 0600 and renamed: the token is never readable by others, not even briefly
  await atomicWrite(path, content, { mode: 0o600 });
  return path;
}

/** Removes the file; a missing one is not an error (a crash path may have removed it first). */
export async function removeRunFile(root: string, name: string): Promise<void> {
  await fsp.rm(runPath(root, name), { force: true });
}
