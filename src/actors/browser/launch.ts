// Starts a headless Chromium/Chrome in its own process group with a fresh temp profile, speaking CDP on fds 3/4
// (`--remote-debugging-pipe`: no port is opened, none is scanned). The group is registered with the runtime at
// once (`trackProcessGroup`), so it dies with this worker whatever ends it; stop() ends it here and removes the profile.
import type { ChildProcess } from 'node:child_process';
import { nodeChildProcess } from '../../runtime/lazy-builtins.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { trackProcessGroup } from '../../runtime/process-groups.js';
import { withOwnerMark } from '../../runtime/owner-mark.js';
import { CdpConnection } from './cdp.js';
import { BrowserError } from './errors.js';

/** Flags for a headless browser on a locked-down machine: no sandbox (containers), no GPU, no background traffic. */
export const BROWSER_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--mute-audio',
  '--window-size=1280,800',
  '--remote-debugging-pipe',
];

export const PROFILE_PREFIX = 'yagent-browser-';
const OWNER_FILE = '.yagent-owner';
/** A profile dir without an owner file this old was left by a launch that never got to write it. */
const ORPHAN_DIR_MS = 10 * 60_000;
/** SIGTERM → SIGKILL, and how long an exit is awaited after SIGKILL. */
const KILL_GRACE_MS = 1000;

export interface LaunchOptions {
  executable: string;
  /** The built environment (run_bash's: no API keys); HOME and XDG dirs are pointed into the profile. */
  env: NodeJS.ProcessEnv;
  /** Until the browser answers its first command. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Where profile dirs go (default: the OS temp dir, never the cwd). */
  tmpRoot?: string;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  error?: string;
}

export class BrowserProcess {
  readonly conn: CdpConnection;
  private stopping: Promise<void> | null = null;
  private stderr = '';

  constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    readonly profileDir: string,
    readonly exited: Promise<ExitInfo>,
    private readonly release: () => void,
  ) {
    this.conn = new CdpConnection(child.stdio[3] as Writable, child.stdio[4] as Readable);
    child.stderr?.setEncoding('utf8').on('data', (s: string) => (this.stderr = (this.stderr + s).slice(-8000)));
  }

  /** The last lines the browser printed that say something (the dbus noise of a container filtered out). */
  stderrTail(lines = 3): string {
    return this.stderr
      .split('\n')
      .filter((l) => l.trim() !== '' && !/dbus|Fontconfig/i.test(l))
      .slice(-lines)
      .join('\n');
  }

  /** The exit, or null when it has not come within `ms`. */
  async exitWithin(ms: number): Promise<ExitInfo | null> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
    try {
      return await Promise.race([this.exited, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL to the whole group now (abort handlers: nothing to await); stop() still reaps and cleans up. */
  killNow(): void {
    signalGroup(this.pid, 'SIGKILL');
  }

  /** Ends the group (TERM, KILL after the grace), waits for the exit, releases the registration, removes the profile. */
  stop(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    this.conn.close(new BrowserError('browser_closed', 'the browser was stopped'));
    signalGroup(this.pid, 'SIGTERM');
    if ((await this.exitWithin(KILL_GRACE_MS)) === null) signalGroup(this.pid, 'SIGKILL');
    // renderers and the zygote share the group: whatever outlived the main process goes too
    signalGroup(this.pid, 'SIGKILL');
    await this.exitWithin(KILL_GRACE_MS);
    this.child.stderr?.destroy();
    this.release();
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}

export async function launchBrowser(o: LaunchOptions): Promise<BrowserProcess> {
  const root = o.tmpRoot ?? tmpdir();
  sweepStaleProfiles(root);
  const profileDir = mkdtempSync(join(root, PROFILE_PREFIX));
  const env: NodeJS.ProcessEnv = { ...withOwnerMark(o.env ?? {}), HOME: profileDir, XDG_CONFIG_HOME: join(profileDir, '.config'), XDG_CACHE_HOME: join(profileDir, '.cache') };
  const child = nodeChildProcess().spawn(o.executable, [...BROWSER_FLAGS, `--user-data-dir=${join(profileDir, 'profile')}`, 'about:blank'], {
    env,
    cwd: profileDir,
    detached: true, // its own process group: one signal reaches every process it starts
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (e) => resolve({ code: null, signal: null, error: e.message }));
  });
  const pid = child.pid;
  if (pid === undefined) {
    const info = await exited;
    rmSync(profileDir, { recursive: true, force: true });
    throw new BrowserError('browser_launch_failed', `could not start ${o.executable}: ${info.error ?? 'no process'}`);
  }
  const release = trackProcessGroup(pid, exited);
  writeFileSync(join(profileDir, OWNER_FILE), String(pid), { mode: 0o600 });
  const proc = new BrowserProcess(child, pid, profileDir, exited, release);
  try {
    // the first answer is the readiness signal; an early exit closes the pipe and rejects it
    await proc.conn.send('Browser.getVersion', {}, { timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
    return proc;
  } catch (e) {
    await proc.stop();
    if ((e as BrowserError).kind === 'cancelled') throw e;
    const info = await exited;
    const how = info.error ?? (info.code !== null || info.signal !== null ? `it exited (${describeExit(info)})` : (e as Error).message);
    const tail = proc.stderrTail();
    throw new BrowserError('browser_launch_failed', `${o.executable} did not start: ${how}${tail ? `\n${tail}` : ''}`);
  }
}

export function describeExit(info: ExitInfo): string {
  return info.signal !== null ? `signal ${info.signal}` : `exit code ${info.code ?? 'unknown'}`;
}

/** Removes profile dirs whose browser is gone: one left by a worker that was terminated before it could clean up. */
export function sweepStaleProfiles(root: string, now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith(PROFILE_PREFIX));
  } catch {
    return removed;
  }
  for (const name of names) {
    const dir = join(root, name);
    let owner: number | null = null;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      // no owner file yet: a launch in progress, unless it is old
    }
    const stale = owner !== null ? !processAlive(owner) : ageMs(dir, now) > ORPHAN_DIR_MS;
    if (stale) {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    }
  }
  return removed;
}

function ageMs(dir: string, now: number): number {
  try {
    return now - statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // a zombie still answers kill(0): it is gone for our purpose
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(0) is all we know
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  if (pgid <= 1) return;
  try {
    process.kill(-pgid, sig);
  } catch {
    // ESRCH: nothing left in the group
  }
}
