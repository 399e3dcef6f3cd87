// Runs a shell command in its own process group. Timeout and cancellation kill the WHOLE group
// (grandchildren included); completion never waits on pipe EOF alone (pitfall 46).
import { nodeChildProcess } from '../../runtime/lazy-builtins.js';
import { once } from 'node:events';
import { trackProcessGroup } from '../../runtime/process-groups.js';
import { withOwnerMark } from '../../runtime/owner-mark.js';
import { truncationMarker } from './truncate.js';

export interface GroupRunOptions {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** SIGTERM → SIGKILL delay on timeout/cancel. */
  killGraceMs?: number;
  /** After the shell exits, how long its pipes may stay open (held by background children) before the group is killed. */
  pipeGraceMs?: number;
  /** Bytes kept of the combined output (half head, half tail). */
  maxCaptureBytes?: number;
  /** The child's whole environment (run_bash passes the built one: shell-env.ts). */
  env?: NodeJS.ProcessEnv;
  /** The program and its arguments (default `bash -c <command>`; the sandbox puts bwrap in front). */
  argv?: readonly string[];
}

export interface GroupRunResult {
  pid: number;
  exitCode: number | null;
  exitSignal: string | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  /** True when background processes still held the pipes after exit and were killed. */
  killedStragglers: boolean;
}

/** Keeps the first and last halves of a stream; the middle is counted, not stored. */
class Capture {
  private head = '';
  private tail = '';
  private dropped = 0;
  constructor(private readonly max: number) {}
  push(s: string): void {
    const half = Math.floor(this.max / 2);
    if (this.head.length < half) {
      const take = s.slice(0, half - this.head.length);
      this.head += take;
      s = s.slice(take.length);
    }
    this.tail += s;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }
  text(): string {
    return this.dropped > 0 ? this.head + truncationMarker(this.dropped) + this.tail : this.head + this.tail;
  }
}

function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the group is already gone
  }
}

function groupExists(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A killed group takes a moment to leave the process table; bounded so an unreaped zombie cannot hang us. */
async function awaitGroupGone(pid: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (groupExists(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

export async function runInGroup(o: GroupRunOptions): Promise<GroupRunResult> {
  const { result, killed, release } = await runRaw(o);
  if (killed) await awaitGroupGone(result.pid, 500);
  // A group with background processes left (e.g. `server &` with its output closed) stays registered.
  if (!groupExists(result.pid)) release();
  return result;
}

function runRaw(o: GroupRunOptions): Promise<{ result: GroupRunResult; killed: boolean; release: () => void }> {
  const killGraceMs = o.killGraceMs ?? 1000;
  const pipeGraceMs = o.pipeGraceMs ?? 200;
  const capture = new Capture(o.maxCaptureBytes ?? 256 * 1024);
  return new Promise((resolve) => {
    const [file = 'bash', ...args] = o.argv ?? ['bash', '-c', o.command];
    const child = nodeChildProcess().spawn(file, args, { cwd: o.cwd, env: withOwnerMark(o.env ?? process.env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid ?? -1;
    // Registered with the main thread at once: if this worker dies, the supervisor kills the group.
    const release = pid > 0 ? trackProcessGroup(pid, once(child, 'exit')) : () => undefined;
    const timers: NodeJS.Timeout[] = [];
    const state = { exitCode: null as number | null, exitSignal: null as string | null, timedOut: false, cancelled: false, stragglers: false, done: false, killed: false };
    const kill = (sig: NodeJS.Signals): void => {
      state.killed = true;
      killGroup(pid, sig);
    };
    const finish = (): void => {
      if (state.done) return;
      state.done = true;
      for (const t of timers) clearTimeout(t);
      o.signal.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      const result = { pid, exitCode: state.exitCode, exitSignal: state.exitSignal, output: capture.text(), timedOut: state.timedOut, cancelled: state.cancelled, killedStragglers: state.stragglers };
      resolve({ result, killed: state.killed, release });
    };
    const terminate = (): void => {
      kill('SIGTERM');
      timers.push(setTimeout(() => kill('SIGKILL'), killGraceMs));
      // hard bound: the call returns even if the kernel is slow to report the exit
      timers.push(setTimeout(() => (kill('SIGKILL'), finish()), killGraceMs + pipeGraceMs + 50));
    };
    const onAbort = (): void => {
      state.cancelled = true;
      terminate();
    };
    child.stdout.setEncoding('utf8').on('data', (s: string) => capture.push(s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => capture.push(s));
    child.on('error', (e) => {
      capture.push(`failed to start ${file}: ${e.message}\n`);
      finish();
    });
    child.on('exit', (code, sig) => {
      state.exitCode = code;
      state.exitSignal = sig;
      timers.push(
        setTimeout(() => {
          state.stragglers = true;
          kill('SIGKILL');
          finish();
        }, pipeGraceMs),
      );
    });
    child.on('close', () => {
      if (state.timedOut || state.cancelled) kill('SIGKILL');
      finish();
    });
    if (pid < 0) return;
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    timers.push(
      setTimeout(() => {
        state.timedOut = true;
        terminate();
      }, o.timeoutMs),
    );
  });
}
