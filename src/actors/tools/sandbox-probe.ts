// Whether bubblewrap can sandbox run_bash here: found on PATH and able to make its namespaces (macOS and some
// containers cannot). Probed once per thread and PATH with a real `bwrap … true`; the CLI says the result in one
// line at start-up, each agent worker asks again at its first run_bash (a few ms, off the model's path).
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { nodeChildProcess } from '../../runtime/lazy-builtins.js';

export type SandboxSupport =
  | { ok: true; bwrap: string; /** The namespace flags that worked here (`--unshare-user` where it can be made). */ flags: readonly string[] }
  | { ok: false; reason: string };

/** Every sandboxed command has these, whatever else: a new PID namespace that dies with its parent, no capabilities
 *  (as root a capable process could unmount a mask), the host's file system read-only, a fresh /dev and /proc. */
export const BASE_FLAGS: readonly string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
export const NAMESPACE_FLAGS: readonly string[] = ['--unshare-pid', '--die-with-parent', '--cap-drop', 'ALL'];
/** Tried first; a setuid bwrap or a kernel without user namespaces for us runs without it. */
const USER_NS = ['--unshare-user'];

const PROBE_TIMEOUT_MS = 5000;
const probes = new Map<string, Promise<SandboxSupport>>();

/** `bwrap` on this PATH, or null. */
export function findBwrap(pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(':')) {
    if (dir === '') continue;
    const p = join(dir, 'bwrap');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here: the next PATH entry
    }
  }
  return null;
}

/** Runs `bwrap <flags> -- true`; resolves with its first stderr line on failure, null on success. */
function tryFlags(bwrap: string, flags: readonly string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) => {
    const child = nodeChildProcess().spawn(bwrap, [...BASE_FLAGS, ...flags, '--', 'true'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve(e.message);
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      resolve(code === 0 ? null : (err.trim().split('\n')[0] ?? '') || `bwrap exited with ${sig ?? code}`);
    });
  });
}

async function probe(env: NodeJS.ProcessEnv): Promise<SandboxSupport> {
  if (process.platform !== 'linux') return { ok: false, reason: `bubblewrap is Linux only (this is ${process.platform})` };
  const bwrap = findBwrap(env['PATH']);
  if (bwrap === null) return { ok: false, reason: 'bubblewrap (bwrap) is not installed or not on PATH' };
  const withUser = [...USER_NS, ...NAMESPACE_FLAGS];
  if ((await tryFlags(bwrap, withUser, env)) === null) return { ok: true, bwrap, flags: withUser };
  const failed = await tryFlags(bwrap, NAMESPACE_FLAGS, env);
  return failed === null ? { ok: true, bwrap, flags: NAMESPACE_FLAGS } : { ok: false, reason: `bwrap cannot make its namespaces here (${failed})` };
}

/** The probe's answer for this PATH, once per thread. */
export function probeSandbox(env: NodeJS.ProcessEnv): Promise<SandboxSupport> {
  const key = env['PATH'] ?? '';
  let p = probes.get(key);
  if (p === undefined) probes.set(key, (p = probe(env)));
  return p;
}

/** The start-up line where commands run without the OS sandbox (null: sandboxed, or the user turned it off). */
export async function sandboxNotice(mode: 'auto' | 'off', env: NodeJS.ProcessEnv): Promise<string | null> {
  if (mode === 'off') return null;
  const s = await probeSandbox(env);
  return s.ok ? null : `yagent: no OS sandbox for run_bash: ${s.reason}; the word check is the only layer (install bubblewrap, or set [security] sandbox = "off" to silence this)`;
}
