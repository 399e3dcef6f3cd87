// The owner mark: every process an actor starts (run_bash, MCP servers, Chromium) carries YAGENT_OWNER=<digest of the
// pid and start time of the yagent process that started it>, and its descendants inherit it (a digest: a sandboxed
// command does not learn yagent's pid). A process whose owner is gone (no live process with that pid AND that start
// time) is an orphan: the watchdog kills it on EOF, and the next start sweeps it. Linux only (/proc).
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { nodeCrypto } from './lazy-builtins.js';

export const OWNER_ENV = 'YAGENT_OWNER';

/** Fields of /proc/PID/stat after "pid (comm) ": state is [0], pgrp [2], starttime (clock ticks since boot) [19]. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // gone, or no /proc
  }
}

/** The start time of `pid` (clock ticks since boot), null when it is gone or a zombie: with its pid, the
 *  identity of a process that a reused pid can never share. */
export function procStartTime(pid: number): string | null {
  const f = statFields(pid);
  if (f === null || f[0] === 'Z' || f[0] === 'X') return null;
  return f[19] ?? null;
}

/** The process group of `pid`, null when it is gone. */
export function procGroup(pid: number): number | null {
  const g = Number(statFields(pid)?.[2]);
  return Number.isInteger(g) && g > 1 ? g : null;
}

/** The mark of the process `pid` started at `start`: fixed length, so no mark is a prefix of another. */
export function markOf(pid: number, start: string): string {
  return `y1${nodeCrypto().createHash('sha256').update(`${pid}:${start}`).digest('hex').slice(0, 24)}`;
}

let mark: string | null | undefined;
/** This process's mark value; null without /proc. */
export function ownerMark(): string | null {
  if (mark === undefined) {
    const start = procStartTime(process.pid);
    mark = start === null ? null : markOf(process.pid, start);
  }
  return mark;
}

/** `env` for a child this process starts: with this process's mark (replacing an inherited one). */
export function withOwnerMark<E extends Record<string, string | undefined>>(env: E): E {
  const m = ownerMark();
  return m === null ? env : { ...env, [OWNER_ENV]: m };
}

const markRe = (name: string): RegExp => new RegExp(`(?:^|\\0)${name}=(y1[0-9a-f]{24})(?:\\0|$)`);
const MARK_RE = markRe(OWNER_ENV);

/** Live processes carrying a mark whose owner is gone, with the mark. */
/** `envName` is for tests only: every yagent on the machine sweeps marks under OWNER_ENV, so a test's planted orphans
 *  carry another name to be this sweep's alone. */
export async function orphans(envName = OWNER_ENV): Promise<{ pid: number; mark: string }[]> {
  const re = envName === OWNER_ENV ? MARK_RE : markRe(envName);
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const pids = names.filter((n) => /^\d+$/.test(n)).map(Number);
  // the marks of every running process (a zombie is gone): a mark not among them has lost its owner
  const live = new Set<string>();
  for (const pid of pids) {
    const start = procStartTime(pid);
    if (start !== null) live.add(markOf(pid, start));
  }
  const out: { pid: number; mark: string }[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    // another user's process refuses the read; one that exited meanwhile is gone: neither is ours to sweep
    const env = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    const m = re.exec(env)?.[1];
    if (m !== undefined && !live.has(m) && procStartTime(pid) !== null) out.push({ pid, mark: m });
  }
  return out;
}

/** The sweep at start: SIGKILL to every orphan and its process group. Returns the pids it signalled. */
export async function sweepOrphans(envName = OWNER_ENV): Promise<number[]> {
  const found = await orphans(envName);
  for (const { pid } of found) {
    const pgid = procGroup(pid);
    // the group is the run_bash group the orphan lives in (a live member keeps its id from being reused)
    if (pgid !== null && pgid !== process.pid && pgid !== procGroup(process.pid)) signal(-pgid);
    signal(pid);
  }
  return found.map((o) => o.pid);
}

function signal(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // ESRCH: it went by itself
  }
}

/** The live pids carrying the mark `value` (a check that a killed run left nothing); [] without /proc. */
export function markedBy(value: string): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names.filter((n) => /^\d+$/.test(n)).filter((n) => {
    try {
      return MARK_RE.exec(readFileSync(`/proc/${n}/environ`, 'latin1'))?.[1] === value && procStartTime(Number(n)) !== null;
    } catch {
      return false;
    }
  }).map(Number);
}
