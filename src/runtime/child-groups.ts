// The exit hook's second net (Linux): process groups led by this process's own children, read from /proc.
// Every tool group is spawned detached (its own group, the leader our direct child), so a group the registry
// does not know at exit is still found here — seen under heavy load in test/cli/no-orphans.test.ts, cause not
// found yet. Children that share our group (git, rg) are not leaders and are left alone.
import { readdirSync, readFileSync } from 'node:fs';

/** pgids of the groups led by direct children of `parentPid`; [] where /proc is missing. */
export function childGroupLeadersSync(parentPid = process.pid): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(name);
      if (Number(ppid) === parentPid && Number(pgrp) === pid) out.push(pid);
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}
