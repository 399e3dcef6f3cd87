// YAGENT_TRACE=1: phase timings on stderr from every thread, in ms since the process started (start-up and shutdown
// costs made visible). Off, a call is one boolean test.
import { readFileSync, writeSync } from 'node:fs';
import { isMainThread, threadId } from 'node:worker_threads';

const on = process.env['YAGENT_TRACE'] === '1';
// the main thread's time origin reaches workers through the env they copy when they are created
if (on && isMainThread) process.env['YAGENT_TRACE_ORIGIN'] ??= String(performance.timeOrigin);
const origin = Number(process.env['YAGENT_TRACE_ORIGIN'] ?? performance.timeOrigin);
// YAGENT_TRACE_BUILTINS=1 too: each line names the public Node builtins this thread has loaded so far (what a
// thread's path to a point costs in module loads; test/cli/startup.test.ts pins the Director's first request).
const builtins = on && process.env['YAGENT_TRACE_BUILTINS'] === '1';

export function trace(label: string): void {
  if (!on) return;
  const ms = performance.timeOrigin + performance.now() - origin;
  // the process's CPU so far (every thread): on two cores, start-up is bound by it as much as by any one thread
  const cpu = process.cpuUsage();
  const own = threadCpuMs();
  // synchronous: a worker's line must not wait for the main thread to relay it
  writeSync(2, `[trace] ${ms.toFixed(1)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, this thread ${own}) ${isMainThread ? '' : `thread ${threadId}: `}${label}${builtins ? builtinsLoaded() : ''}\n`);
}

function builtinsLoaded(): string {
  const list = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
  const names = list.filter((m) => m.startsWith('NativeModule ') && !m.startsWith('NativeModule internal/')).map((m) => `node:${m.slice(13)}`);
  return ` [builtins: ${names.join(' ')}]`;
}

const said = new Set<string>();

/** A label's first occurrence in this thread only (e.g. the first model request of a worker). */
export function traceOnce(label: string): void {
  if (!on || said.has(label)) return;
  said.add(label);
  trace(label);
}

/** This thread's CPU time so far (Linux: /proc/thread-self/schedstat, ns), or '?' elsewhere. */
function threadCpuMs(): string {
  try {
    return `${(Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6).toFixed(0)} ms`;
  } catch {
    return '?';
  }
}
