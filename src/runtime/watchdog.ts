// The watchdog: a tiny shell (its own session, so no signal to the CLI's group reaches it) that holds a pipe from
// this process. kill -9 or the OOM killer close the pipe without running any exit hook of ours; on that EOF the
// shell kills every process carrying this process's owner mark and every registered group whose leader still has
// the start time it was registered with (a reused pid is never signalled): TERM, then KILL a second later.
import type { ChildProcess } from 'node:child_process';
import { nodeChildProcess } from './lazy-builtins.js';
import { OWNER_ENV, ownerMark, procStartTime, sweepOrphans } from './owner-mark.js';
import { processGroups } from './process-groups.js';
import type { NamedTasks } from './tasks.js';
import { trace } from './trace.js';

/** POSIX sh: reads "+ pgid start" / "- pgid" lines until EOF, then ends what is left. $1 is the owner mark. */
const SCRIPT = `mark=$1
reg=' '
while read -r op pg st; do
  case $op in
    +) reg="$reg$pg:$st " ;;
    -) new=' '; for e in $reg; do [ "\${e%%:*}" = "$pg" ] || new="$new$e "; done; reg=$new ;;
  esac
done
targets() {
  for f in $(grep -lsF "${OWNER_ENV}=$mark" /proc/[0-9]*/environ); do
    p=\${f#/proc/}; p=\${p%/environ}
    read -r s < "/proc/$p/stat" || continue
    s=\${s##*) }; set -- $s
    [ "$1" = Z ] && continue
    [ "$3" -gt 1 ] && echo "-$3"
    echo "$p"
  done
  for e in $reg; do
    pg=\${e%%:*}; st=\${e#*:}
    read -r s < "/proc/$pg/stat" || continue
    s=\${s##*) }; set -- $s
    [ "\${20}" = "$st" ] && echo "-$pg"
  done
}
t=$(targets)
[ -z "$t" ] && exit 0
kill -s TERM -- $t
sleep 1
t=$(targets)
[ -n "$t" ] && kill -s KILL -- $t
exit 0
`;

export interface Watchdog {
  readonly pid: number;
  /** A group this process registered (main-thread registry) or released. */
  group(op: 'register' | 'unregister', pgid: number): void;
}

/** Starts the watchdog (Linux: it reads /proc); null where it cannot run. Never keeps this process alive. */
export function startWatchdog(): Watchdog | null {
  const mark = ownerMark();
  if (mark === null || process.platform !== 'linux') return null;
  const env = { ...process.env };
  delete env[OWNER_ENV]; // the shell and its grep are not what it kills
  let child: ChildProcess;
  try {
    child = nodeChildProcess().spawn('/bin/sh', ['-c', SCRIPT, 'yagent-watchdog', mark], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env });
  } catch {
    return null; // no /bin/sh: the exit hook and the next start's sweep are what is left
  }
  const stdin = child.stdin;
  if (!child.pid || !stdin) return null;
  // a watchdog that died: the exit hook and the next start's sweep still hold, so its pipe error is not ours to raise
  stdin.on('error', () => undefined);
  child.on('error', () => undefined);
  child.unref();
  (stdin as unknown as { unref?: () => void }).unref?.();
  return {
    pid: child.pid,
    group(op, pgid) {
      if (stdin.destroyed) return;
      if (op === 'unregister') stdin.write(`- ${pgid}\n`);
      else {
        const start = procStartTime(pgid);
        if (start !== null) stdin.write(`+ ${pgid} ${start}\n`);
      }
    },
  };
}

/** The CLI's guard against orphans beyond its own exit path: the watchdog fed by the main-thread registry, and the
 *  sweep of what an earlier yagent left behind (run in the background: start-up does not wait for it). The sweep
 *  (~25 ms of CPU: every process's environ read) starts once `after` settles; a shutdown before that skips it (the
 *  next start sweeps). */
export function guardOrphans(tasks: NamedTasks, after: Promise<unknown> = Promise.resolve(), watchdogAfter?: Promise<unknown>): void {
  const arm = (): void => {
    const w = startWatchdog();
    trace('watchdog: started');
    // the groups registered before it started are handed to it first (ProcessGroupRegistry.watch)
    if (w !== null) processGroups.watch((op, pgid) => w.group(op, pgid));
  };
  // its /bin/sh spawn is ~10 ms of main-thread CPU: a CLI may start it once its first task's start is posted
  if (watchdogAfter === undefined) arm();
  else void tasks.go('watchdog', async (signal) => void ((await settledBeforeAbort(watchdogAfter, signal)) && arm()));
  void tasks.go('orphan-sweep', async (signal) => {
    if (!(await settledBeforeAbort(after, signal))) return;
    trace('orphan sweep: started');
    const swept = await sweepOrphans();
    if (swept.length > 0) trace(`orphan sweep: killed ${swept.join(', ')} (their yagent was gone)`);
  });
}

/** True once `p` settles, false if `signal` aborts first (the listener is removed either way). */
function settledBeforeAbort(p: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve(!signal.aborted);
    };
    p.then(done, done);
  });
}
