// Discovery files under <root>/run/: a running supervisor's address, pid, token and version (written by the store).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { runDir } from '../cli/home.js';

export const DiscoverySchema = z.object({
  version: z.string(),
  pid: z.number().int().positive(),
  address: z.string().url(),
  token: z.string().min(32),
  startedAt: z.number(),
});
export type Discovery = z.infer<typeof DiscoverySchema>;

const NAME_RE = /^supervisor-\d+\.json$/;

/** The run file's plain name (the store's writeRunFile takes names, never paths). */
export function discoveryName(pid: number): string {
  return `supervisor-${pid}.json`;
}

export function discoveryPath(pid: number, env: NodeJS.ProcessEnv = process.env): string {
  return join(runDir(env), discoveryName(pid));
}

/** The single writer of the data root: the store actor (through Host) or a StoreService in tests. */
export interface RunFileWriter {
  writeRunFile(name: string, content: string): Promise<string>;
  removeRunFile(name: string): Promise<void>;
}

/** Written by the store: atomic, 0600 inside a 0700 directory (the file holds the bearer token). */
export async function writeDiscovery(writer: RunFileWriter, info: Discovery): Promise<string> {
  return writer.writeRunFile(discoveryName(info.pid), `${JSON.stringify(DiscoverySchema.parse(info))}\n`);
}

export async function removeDiscovery(writer: RunFileWriter, pid: number): Promise<void> {
  await writer.removeRunFile(discoveryName(pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes, through the store, the files of supervisors whose pid is dead (a force-quit leaves them behind);
 *  the pid comes from the name, so even an unreadable file of a dead process goes. Returns the names removed. */
export async function pruneDeadDiscoveries(writer: RunFileWriter, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(runDir(env)).filter((n) => NAME_RE.test(n));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(name.slice('supervisor-'.length, -'.json'.length));
    if (pid === process.pid || !Number.isSafeInteger(pid) || pid <= 0 || alive(pid)) continue;
    await writer.removeRunFile(name);
    removed.push(name);
  }
  return removed;
}

/** Running supervisors, newest first. Files of dead processes (a crash skips the async remove) are skipped,
 *  never deleted here: only the store writes under the data root. */
export function findSupervisors(env: NodeJS.ProcessEnv = process.env): Discovery[] {
  const dir = runDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => NAME_RE.test(n));
  } catch {
    return [];
  }
  const found: Discovery[] = [];
  for (const name of names) {
    let parsed: Discovery;
    try {
      parsed = DiscoverySchema.parse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    } catch {
      continue; // gone since the listing, or not ours: skip
    }
    if (alive(parsed.pid)) found.push(parsed);
  }
  return found.sort((a, b) => b.startedAt - a.startedAt);
}
