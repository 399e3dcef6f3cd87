// Agent compute below the screen: when a UI draws in this process (the TUI: `RuntimeOptions.workerNice`), each actor
// worker thread lowers its own scheduling priority as it boots, so on a busy machine the main thread (input, paint,
// the terminal's writes) gets a core before agent, store and MCP threads do. Headless runs never call this.
// Linux only: there nice is per thread (setpriority on a thread id); elsewhere it would take the whole process.
import { readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Os from 'node:os';
import { trace } from './trace.js';

/** This thread's kernel id (`/proc/thread-self` → `<pid>/task/<tid>`); undefined where there is none (not Linux). */
export function kernelThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined; // no /proc/thread-self: a system whose threads have no nice of their own
  }
}

/** Sets this thread's nice to the process's (its main thread's) plus `by`, at most 19. Idempotent (a thread bundle's
 *  entry and its bootstrap both call it): a thread already that low is left alone. Returns the nice it now has, or
 *  undefined when nothing was done. A thread may always lower its own priority, so a failure is unexpected; it is
 *  traced and the worker runs on at the process's priority, as a headless run's workers do (nothing is lost). */
export function lowerThisThread(by: number): number | undefined {
  if (!(by > 0)) return undefined;
  const tid = kernelThreadId();
  if (tid === undefined) return undefined;
  try {
    const os = createRequire(import.meta.url)('node:os') as typeof Os; // only a UI's workers load it
    const nice = Math.min(19, os.getPriority(process.pid) + Math.floor(by));
    if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
    return nice;
  } catch (err) {
    trace(`thread priority not lowered: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}
