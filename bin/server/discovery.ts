// Discovery files under <root>/run/: a running supervisor's address, pid, token and version, 0600.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

export function discoveryPath(pid: number, env: NodeJS.ProcessEnv = process.env): string {
  return join(runDir(env), `supervisor-${pid}.json`);
}

/** Writes the file 0600 inside a 0700 directory; created exclusively so a stale file is never reused. */
export function writeDiscovery(info: Discovery, env: NodeJS.ProcessEnv = process.env): string {
  const dir = runDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = discoveryPath(info.pid, env);
  rmSync(path, { force: true });
  writeFileSync(path, `${JSON.stringify(info)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return path;
}

export function removeDiscovery(path: string): void {
  rmSync(path, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Running supervisors, newest first; files of dead processes are removed on the way. */
export function findSupervisors(env: NodeJS.ProcessEnv = process.env): Discovery[] {
  const dir = runDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^supervisor-\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const found: Discovery[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let parsed: Discovery;
    try {
      parsed = DiscoverySchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    } catch {
      continue; // being written right now, or not ours: skip, never delete
    }
    if (alive(parsed.pid)) found.push(parsed);
    else removeDiscovery(path);
  }
  return found.sort((a, b) => b.startedAt - a.startedAt);
}
