// Process-table helpers for the no-orphans tests: members of a process group read from /proc, by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Member {
  pid: number;
  state: string;
  ppid: number;
}

/** Every process (zombies included) whose process group is `pgid`. */
export function groupMembers(pgid: number): Member[] {
  return processes().filter((m) => m.pgrp === pgid).map(({ pid, state, ppid }) => ({ pid, state, ppid }));
}

/** The process group of the live process whose command line is exactly `argv` (a unique `sleep 300.<n>`): how a
 *  test finds a run_bash group by PID from outside, whether or not the sandbox gave the shell pids of its own. */
export function groupOf(argv: readonly string[]): number | undefined {
  const want = `${argv.join('\0')}\0`;
  for (const m of processes()) {
    if (m.state === 'Z') continue;
    try {
      if (readFileSync(`/proc/${m.pid}/cmdline`, 'utf8') === want) return m.pgrp;
    } catch {
      // exited while we looked
    }
  }
  return undefined;
}

/** Children of `ppid` that exited and were never reaped by it. */
export function zombieChildren(ppid: number): Member[] {
  return processes().filter((m) => m.state === 'Z' && m.ppid === ppid).map(({ pid, state }) => ({ pid, state, ppid }));
}

/** The whole process table (zombies included). */
export function processes(): (Member & { pgrp: number })[] {
  const out: (Member & { pgrp: number })[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we listed
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.push({ pid: Number(name), state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]) });
  }
  return out;
}

/** How long a test waits for a group to go: the code bounds it (SIGTERM, SIGKILL a second later); the deadline only
 *  has to outlast a loaded 2-core box (issue 24: a wait ends at the event, a deadline is generous). */
export const GONE_DEADLINE_MS = 20_000;

/** Polls (bounded) until no process of the group is alive; returns the live members left at the deadline. */
export async function noLiveMember(pgid: number, maxMs: number): Promise<Member[]> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const live = groupMembers(pgid).filter((m) => m.state !== 'Z');
    if (live.length === 0 || Date.now() > deadline) return live;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A detached `sleep 300` with a backgrounded grandchild, started by this process. */
export function spawnGroup(): ChildProcess {
  return spawn('bash', ['-c', 'sleep 300 & sleep 300'], { detached: true, stdio: 'ignore' });
}

/** Members of the group that are children of THIS process (alive or zombie): after a graceful stop there
 *  must be none. Orphaned grandchildren belong to init, which reaps them (or not: not ours to judge). */
export function ownChildren(pgid: number): Member[] {
  return groupMembers(pgid).filter((m) => m.ppid === process.pid);
}

/** `root` and every live process below it, read from the process table at one moment. */
export function treeOf(root: number): number[] {
  const table = processes().filter((m) => m.state !== 'Z');
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const m of table) if (m.ppid === tree[i]) tree.push(m.pid);
  return tree;
}

/** Polls (bounded) until none of `pids` is alive (a zombie counts as gone); returns those left at the deadline. */
export async function noneAlive(pids: readonly number[], maxMs: number): Promise<number[]> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const alive = new Set(processes().filter((m) => m.state !== 'Z').map((m) => m.pid));
    const left = pids.filter((p) => alive.has(p));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
}
