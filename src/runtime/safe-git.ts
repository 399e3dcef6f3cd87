// yagent's own git runs no program from the repository and sees no key (issue 22): a repository's `.git/config` can
// name a clean/smudge/process filter (run by `git status` on any file whose stat changed), an fsmonitor, hooks, an
// external diff or a textconv. Every git yagent spawns goes through `runSafeGit`.
import { readFileSync, statSync } from 'node:fs';
import { atomicWrite } from './atomic-write.js';
import { isAbsolute, join, resolve } from 'node:path';
import { nodeChildProcess } from './lazy-builtins.js';
import { trackProcessGroup } from './process-groups.js';

/** Passed through from yagent's environment, nothing else: git needs to find itself, the user's config and a temp dir. */
const GIT_ENV_KEEP = ['PATH', 'HOME', 'USER', 'LOGNAME', 'TMPDIR', 'TZ', 'XDG_CONFIG_HOME'] as const;

/** Settings that take a program, switched off whatever the repository's config says (command-line scope wins). */
export const SAFE_GIT_SETTINGS: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  // an empty external diff fails the diff rather than run anything; diff commands pass --no-ext-diff as well
  ['diff.external', ''],
];

/** A filter driver runs `clean`/`smudge`/`process`; an empty command is no command (the content passes unchanged). */
const FILTER_KEYS = ['clean', 'smudge', 'process'] as const;

/** Every filter driver that `git config --name-only --list` names (section `filter`, any subsection), disabled. */
export function driverOverrides(configNames: string): [string, string][] {
  const drivers = new Set<string>();
  for (const name of configNames.split('\n')) {
    // a subsection holds any character but newline and NUL, dots included: it runs from the first dot to the last
    const last = name.lastIndexOf('.');
    if (name.startsWith('filter.') && last > 'filter.'.length) drivers.add(name.slice('filter.'.length, last));
  }
  const out: [string, string][] = [];
  for (const d of drivers) {
    for (const k of FILTER_KEYS) out.push([`filter.${d}.${k}`, '']);
    out.push([`filter.${d}.required`, 'false']);
  }
  return out;
}

/** PATH without relative or empty entries: `git` looked up in `.` would be the repository's own `git`. */
function absolutePath(path: string | undefined): string {
  return (path ?? '').split(':').filter((p) => p !== '' && isAbsolute(p)).join(':');
}

/** git's environment: built from an allow-list (no key of any name), the settings passed as GIT_CONFIG_KEY_n/VALUE_n
 *  (a subsection may hold `=`, which `-c k=v` cannot carry), no system config, no prompt, no optional lock. */
export function safeGitEnv(parent: NodeJS.ProcessEnv, settings: readonly (readonly [string, string])[] = SAFE_GIT_SETTINGS): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of GIT_ENV_KEEP) if (parent[name] !== undefined) env[name] = parent[name];
  env.PATH = absolutePath(parent.PATH);
  Object.assign(env, { LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' });
  settings.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  env.GIT_CONFIG_COUNT = String(settings.length);
  return env;
}

export interface SafeGitOptions {
  /** The whole call (the config listing and the command) costs at most this; then it is null. */
  timeoutMs: number;
  /** The git binary (tests point it at a stand-in). */
  git?: string;
  maxBuffer?: number;
  /** Where yagent's environment comes from (tests); process.env otherwise. */
  parentEnv?: NodeJS.ProcessEnv;
  /** git's own locations and identity (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_AUTHOR_*`…): the undo store's
   *  shadow repository; only `GIT_`-named variables, set after the allow-list (never a key). */
  gitEnv?: Readonly<Record<string, string>>;
  /** GIT_INDEX_FILE for the command: a snapshot of the work tree that leaves the repository's own index alone. */
  indexFile?: string;
  /** With `gitEnv.GIT_DIR`: a private file where the kept config listing outlives the process (a `yagent -p` per turn
   *  would list again at its first call); trusted like the data root it lies in, checked by the same stat. */
  listingFile?: string;
  /** `latin1`: stdout keeps every byte (one char each; `Buffer.from(out, 'latin1')` gives them back), for blobs. */
  encoding?: 'utf8' | 'latin1';
}

/** A finished git call: its output, or why it failed (stderr's last line, the exit code or the timeout). */
export type SafeGitResult = { ok: true; stdout: string } | { ok: false; error: string };

function execGit(cwd: string, args: string[], env: NodeJS.ProcessEnv, o: SafeGitOptions, signal: AbortSignal): Promise<SafeGitResult> {
  for (const [k, v] of Object.entries(o.gitEnv ?? {})) if (k.startsWith('GIT_')) env[k] = v;
  if (o.indexFile !== undefined) env['GIT_INDEX_FILE'] = o.indexFile;
  return new Promise((resolve) => {
    nodeChildProcess().execFile(
      o.git ?? 'git',
      ['--no-pager', ...args],
      { cwd, env, signal, killSignal: 'SIGKILL', maxBuffer: o.maxBuffer ?? 4 << 20, encoding: o.encoding ?? 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ ok: true, stdout });
        const why = String(stderr).trim().split('\n').at(-1) || (signal.aborted ? `timed out after ${o.timeoutMs} ms` : err.message);
        resolve({ ok: false, error: `git ${args[0] ?? ''}: ${why}` });
      },
    );
  });
}

/**
 * Runs `git <args>` in `cwd` with no program of the repository's and no key: first the config's own names are listed
 * (`git config` runs nothing), so that every filter driver they define is disabled for the command. A command that
 * can enter submodules passes `--ignore-submodules=all` (a submodule's own config is not listed); diff-family commands
 * add `--no-ext-diff --no-textconv`. Null when git fails, is missing or took too long.
 */
export async function runSafeGit(cwd: string, args: string[], o: SafeGitOptions): Promise<string | null> {
  const r = await runSafeGitResult(cwd, args, o);
  return r.ok ? r.stdout : null;
}

/** Several commands in a row on one config listing (the undo store's snapshot: `add`, then `write-tree`): each runs
 *  with every filter driver of that listing disabled; the whole row within `timeoutMs` per command. A failed listing
 *  is the first command's failure; a failed command ends the row (its result is the last). Two or more run in ONE
 *  child of this process, a `/bin/sh` running them in turn (`runInOneChild`): each fork of this multi-threaded
 *  process blocks the forking thread for milliseconds and costs every thread copy-on-write faults until the child
 *  execs, where the shell's own forks are cheap. */
export async function safeGitSequence(cwd: string, commands: string[][], o: SafeGitOptions): Promise<SafeGitResult[]> {
  const parent = o.parentEnv ?? process.env;
  const names = await configNames(cwd, parent, o, AbortSignal.timeout(o.timeoutMs));
  if (!names.ok) return [names];
  const env = safeGitEnv(parent, [...SAFE_GIT_SETTINGS, ...driverOverrides(names.stdout)]);
  if (commands.length === 1) return [await execGit(cwd, commands[0] ?? [], env, o, AbortSignal.timeout(o.timeoutMs))];
  return runInOneChild(cwd, commands, env, o, AbortSignal.timeout(o.timeoutMs * commands.length));
}

/** Ends each command's output on stdout, and names the command that failed on stderr (then the shell exits). */
const SEQ_MARK = 'yagent-git-sequence-end';
const shellQuote = (a: string): string => `'${a.replace(/'/g, "'\\''")}'`;

function runInOneChild(cwd: string, commands: string[][], env: NodeJS.ProcessEnv, o: SafeGitOptions, signal: AbortSignal): Promise<SafeGitResult[]> {
  for (const [k, v] of Object.entries(o.gitEnv ?? {})) if (k.startsWith('GIT_')) env[k] = v;
  if (o.indexFile !== undefined) env['GIT_INDEX_FILE'] = o.indexFile;
  const git = shellQuote(o.git ?? 'git');
  const script = commands
    .map((args, i) => `${git} --no-pager ${args.map(shellQuote).join(' ')} || { s=$?; printf '\\n%s %d\\n' '${SEQ_MARK}' ${i} >&2; exit $s; }; printf '\\n%s\\n' '${SEQ_MARK}'`)
    .join('\n');
  const end = `\n${SEQ_MARK}\n`;
  const max = o.maxBuffer ?? 4 << 20;
  return new Promise((resolve) => {
    // its own process group: a timeout kills the shell and the git it runs, as it kills a lone git; registered, so it
    // also dies with this thread's worker whatever ends it (process-groups.ts)
    const child = nodeChildProcess().spawn('/bin/sh', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const release = child.pid !== undefined ? trackProcessGroup(child.pid, new Promise((r) => child.once('exit', r))) : () => undefined;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let over = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    const take = (into: Buffer[]) => (b: Buffer): void => {
      bytes += b.length;
      if (bytes > max && !over) {
        over = true;
        killGroup();
      }
      if (!over) into.push(b);
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    signal.addEventListener('abort', killGroup, { once: true });
    let settled = false;
    const finish = (code: number | null, failure?: Error): void => {
      if (settled) return;
      settled = true;
      release();
      signal.removeEventListener('abort', killGroup);
      const enc = o.encoding ?? 'utf8';
      const outs = Buffer.concat(out).toString(enc).split(end);
      const done = Math.min(outs.length - 1, commands.length);
      const results: SafeGitResult[] = outs.slice(0, done).map((text) => ({ ok: true, stdout: text }));
      if (code === 0 && done === commands.length) return resolve(results);
      const lines = Buffer.concat(err).toString('utf8').split('\n');
      const at = lines.findIndex((l) => l.startsWith(`${SEQ_MARK} `));
      const own = (at >= 0 ? lines.slice(0, at) : lines).map((l) => l.trim()).filter((l) => l !== '');
      const why = over ? 'output over maxBuffer' : signal.aborted ? `timed out after ${o.timeoutMs} ms` : own.at(-1) || (failure?.message ?? `exit code ${String(code)}`);
      results.push({ ok: false, error: `git ${commands[done]?.[0] ?? ''}: ${why}` });
      resolve(results);
    };
    child.once('error', (e) => finish(null, e));
    child.once('close', (code) => finish(code));
  });
}

/** `runSafeGit` that says why a call failed (the undo store reports it). */
export async function runSafeGitResult(cwd: string, args: string[], o: SafeGitOptions): Promise<SafeGitResult> {
  const signal = AbortSignal.timeout(o.timeoutMs);
  const parent = o.parentEnv ?? process.env;
  const names = await configNames(cwd, parent, o, signal);
  if (!names.ok) return names;
  const settings = [...SAFE_GIT_SETTINGS, ...driverOverrides(names.stdout)];
  return execGit(cwd, args, safeGitEnv(parent, settings), o, signal);
}

// ---- the config listing, kept while no config file git reads has changed (issue 29: one spawn less per git call)

/** A file whose mtime is this close to the listing may change again within the same timestamp tick: not kept. */
const RACY_MS = 2000;
const listings = new Map<string, { sig: string; names: string }>();
let listingsRun = 0;

/** Forgets the listings kept in memory, as a new process would (tests). */
export function forgetKeptListings(): void {
  listings.clear();
}

/** How many config listings were spawned in this thread (tests count them). */
export function configListingsSpawned(): number {
  return listingsRun;
}

/** Every config file git reads with an explicit GIT_DIR (system config is off): global (XDG, ~/.gitconfig), the
 *  repository's config and worktree config, and `commondir` (which would move the config elsewhere). */
function configFiles(cwd: string, env: NodeJS.ProcessEnv, gitDir: string): string[] {
  const dir = resolve(cwd, gitDir);
  const files = [join(dir, 'config'), join(dir, 'config.worktree'), join(dir, 'commondir')];
  const home = env.HOME;
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && xdg !== '') files.push(join(xdg, 'git', 'config'));
  else if (home !== undefined && home !== '') files.push(join(home, '.config', 'git', 'config'));
  if (home !== undefined && home !== '') files.push(join(home, '.gitconfig'));
  return files;
}

/** ino, size, mtime and ctime (ns) of each file, `-` when missing; null when one was written within RACY_MS. */
function signature(files: string[]): string | null {
  const now = BigInt(Date.now()) * 1_000_000n;
  const parts: string[] = [];
  for (const f of files) {
    const st = statSync(f, { bigint: true, throwIfNoEntry: false });
    if (st === undefined) {
      parts.push('-');
      continue;
    }
    if (now - st.mtimeNs < BigInt(RACY_MS) * 1_000_000n) return null;
    parts.push(`${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`);
  }
  return parts.join('|');
}

/** The names of every config setting git sees for this call (`git config --name-only --list`). With an explicit
 *  GIT_DIR (the undo store's shadow) the answer is kept while a stat of every file git would read is unchanged — and
 *  only when every name came from one of those files and none is an `include`/`includeIf` (an included file could add
 *  a driver unseen): one spawn per git call less. A discovered repository is listed every time. */
async function configNames(cwd: string, parent: NodeJS.ProcessEnv, o: SafeGitOptions, signal: AbortSignal): Promise<SafeGitResult> {
  const gitDir = o.gitEnv?.GIT_DIR;
  if (gitDir === undefined) {
    listingsRun += 1;
    return execGit(cwd, ['config', '--name-only', '--list'], safeGitEnv(parent), o, signal);
  }
  const env = safeGitEnv(parent);
  const files = configFiles(cwd, env, gitDir);
  const key = JSON.stringify([o.git ?? 'git', cwd, files]);
  const sig = signature(files);
  const kept = listings.get(key) ?? fromFile(o.listingFile, key);
  if (sig !== null && kept?.sig === sig) {
    listings.set(key, kept);
    return { ok: true, stdout: kept.names };
  }
  listingsRun += 1;
  const r = await execGit(cwd, ['config', '--name-only', '--list', '--show-origin', '-z'], env, o, signal);
  if (!r.ok) return r;
  const parts = r.stdout.split('\0');
  const names: string[] = [];
  let keep = sig !== null;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const origin = parts[i] ?? '';
    const name = parts[i + 1] ?? '';
    names.push(name);
    const lower = name.toLowerCase(); // git prints section and key in lower case, a subsection as written
    if (lower.startsWith('include.') || lower.startsWith('includeif.')) keep = false;
    if (origin !== 'command line:' && !files.some((f) => origin === `file:${f}`)) keep = false;
  }
  const stdout = names.join('\n');
  if (keep && sig !== null) {
    listings.set(key, { sig, names: stdout });
    // a cache: not fsynced (lost, it is listed again)
    if (o.listingFile !== undefined) await atomicWrite(o.listingFile, JSON.stringify({ key, sig, names: stdout }), { durable: false }).catch(() => undefined);
  } else listings.delete(key);
  return { ok: true, stdout };
}

/** The listing a previous process kept for `key`, or undefined (missing, foreign or torn: listed again). */
function fromFile(path: string | undefined, key: string): { sig: string; names: string } | undefined {
  if (path === undefined) return undefined;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { key?: unknown; sig?: unknown; names?: unknown };
    return v.key === key && typeof v.sig === 'string' && typeof v.names === 'string' ? { sig: v.sig, names: v.names } : undefined;
  } catch {
    return undefined;
  }
}
