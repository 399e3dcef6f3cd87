// Test helpers: run `node bin/yagent.js` as a real subprocess against a temp HOME / YAGENT_HOME.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin', 'yagent.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A temp HOME and YAGENT_HOME; `config` (TOML) is written to the data root's config.toml. */
export function sandbox(config?: string): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'yagent-cli-'));
  const home = join(dir, 'yagent-home');
  mkdirSync(join(home, 'config'), { recursive: true });
  mkdirSync(join(dir, 'tmp')); // the CLI's own temp dirs (demo workspace, scripted config) land here
  if (config !== undefined) writeFileSync(join(home, 'config', 'config.toml'), config, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, YAGENT_HOME: home, YAGENT_NOTES_ROOT: join(home, 'notes'), NO_COLOR: '1', TMPDIR: join(dir, 'tmp') };
  // retries: a child killed with SIGKILL just before may finish the syscall it was in (a file created mid-removal)
  return { dir, home, env, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }) };
}

/** A config that loads cleanly; scripted runs replace its provider with the fake one. */
export const GOOD_CONFIG = `[global.llm]
use_provider = "p"

[global.llm.providers.p]
api_format = "openai"
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key = "k"
`;

/** The default workspace: a package.json whose name the scripted DELEGATING run reports. */
export const FIXTURE_FILES: Record<string, string> = { 'package.json': '{"name":"yagent-fixture"}\n' };

/** A workspace `ws` under the sandbox holding `files` (relative path → content); returns its path. */
export function project(sb: Sandbox, files: Record<string, string> = FIXTURE_FILES): string {
  const ws = join(sb.dir, 'ws');
  mkdirSync(ws, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), content);
  }
  return ws;
}

/** Polls `fn` every 50 ms until it returns a value; throws naming `what` after `ms`. */
export async function until<T>(fn: () => T | undefined | Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `detached`: the CLI leads a process group of its own (a test checks that group by PID). */
export function start(args: string[], env: NodeJS.ProcessEnv, opts: { cwd?: string; input?: string; detached?: boolean } = {}): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'], detached: opts.detached === true });
  child.stdin?.end(opts.input ?? '');
  return child;
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolvePromise) => child.on('close', (code) => resolvePromise({ code, stdout, stderr })));
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, opts: { cwd?: string; input?: string } = {}): Promise<CliResult> {
  return collect(start(args, env, opts));
}

/** Writes a fake-provider script module (plain JS: the CLI imports it) and returns env pointing at it. */
export function withScript(sb: Sandbox, source: string): NodeJS.ProcessEnv {
  const path = join(sb.dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(path, source);
  return { ...sb.env, YAGENT_FAKE_SCRIPT: path };
}

/** Child processes a test started; `reap()` (in afterEach) kills any still running so none outlives its test. */
export function childReaper(): { push(c: ChildProcess): void; reap(): void } {
  const live: ChildProcess[] = [];
  return {
    push: (c) => void live.push(c),
    reap: () => {
      for (const c of live.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
    },
  };
}

/** A serve run waits longer than the default: its discovery file and its tasks come after a cold worker start. */
export const SERVE_WAIT_MS = 30_000;

/** The serve process's address and token, once its discovery file is complete. */
export function discovered(s: Sandbox): Promise<{ address: string; token: string }> {
  const runDir = join(s.home, 'run');
  return until(() => {
    const name = existsSync(runDir) ? readdirSync(runDir).find((n) => /^supervisor-\d+\.json$/.test(n)) : undefined;
    try {
      return name ? (JSON.parse(readFileSync(join(runDir, name), 'utf8')) as { address: string; token: string }) : undefined;
    } catch {
      return undefined;
    }
  }, 'the discovery file', SERVE_WAIT_MS);
}

/** A file's per-test cleanup (registered with afterEach): its children killed, then what `onCleanup` was given (fake
 *  providers, servers) closed, then its sandbox removed. */
export function perTestCleanup(): { children: ReturnType<typeof childReaper>; sandbox(config?: string): Sandbox; onCleanup(fn: () => unknown): void } {
  const children = childReaper();
  const sandboxes: Sandbox[] = [];
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    children.reap();
    for (const close of closers.splice(0)) await close();
    for (const sb of sandboxes.splice(0)) sb.cleanup();
  });
  return {
    children,
    sandbox: (config) => {
      const sb = sandbox(config);
      sandboxes.push(sb);
      return sb;
    },
    onCleanup: (fn) => void closers.push(fn),
  };
}

/** A test's client of a serve process: JSON requests with its token, a task's outcome once it has one, its events. */
export function serveClient(info: { address: string; token: string }) {
  const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${info.address}${path}`, { headers })).json()) as T;
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const r = await fetch(`${info.address}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  return {
    headers,
    get,
    call,
    post: (path: string, body: unknown) => call('POST', path, body),
    outcome: <T = { text: string; sessionId?: string }>(taskId: string): Promise<T> =>
      until(async () => (await get<{ outcome: T | null }>(`/api/task_status?task=${taskId}`)).outcome ?? undefined, `the outcome of ${taskId}`, SERVE_WAIT_MS),
    /** The task's events so far (SSE text, not followed). */
    events: (taskId: string): Promise<string> => fetch(`${info.address}/api/events?task=${taskId}&follow=0`, { headers }).then((r) => r.text()),
  };
}
