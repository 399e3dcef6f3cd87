// Issue 22: run_bash's OS sandbox on its own (no word check in front): whatever the words, the denied places are
// hidden, yagent's process and environment are out of sight, nothing outside the workspace and the temp dir is
// writable, and nothing the command starts outlives it. Each command here is one the word check also refuses: this
// file pins the second layer (remove a mask, the PID namespace or the read-only root and a case fails).
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Boundary, boundaryPolicy } from '../../src/actors/tools/boundary.js';
import { callTool } from '../../src/actors/tools/adapter.js';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import { probeSandbox } from '../../src/actors/tools/sandbox-probe.js';
import { runSandboxed, shellSandbox, type SandboxedRun } from '../../src/actors/tools/sandbox-run.js';
import { buildShellEnv } from '../../src/actors/tools/shell-env.js';
import { call, makeDeps, tempDir } from './helpers.js';

const support = await probeSandbox(process.env);
const sandboxed = support.ok ? support : null;
// CI installs bubblewrap (.ci/run): there a missing sandbox is a failure, not a skip
if (!support.ok && process.env.CI === 'true') throw new Error(`CI=true but run_bash has no sandbox here: ${support.reason}`);
const SSH = 'zz-ssh-private-key-0123';
const CONFIG_KEY = 'zz-config-api-key-0123';
const NETRC = 'zz-netrc-password-0123';
const DOTENV = 'zz-dotenv-token-0123';
const PARENT_SECRET = 'zz-parent-env-secret-0123';

let base: ReturnType<typeof tempDir>;
let ws: string;
let home: string;
let env: NodeJS.ProcessEnv;
const saved = { HOME: process.env.HOME, YAGENT_HOME: process.env.YAGENT_HOME, SECRET: process.env.YAGENT_SANDBOX_PARENT_SECRET };
beforeEach(() => {
  base = tempDir('yagent-sandbox-');
  home = base.path;
  ws = join(base.path, 'ws');
  for (const d of [ws, join(home, 'outside'), join(home, '.ssh'), join(home, '.yagent', 'config'), join(home, 'projects', 'other')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), SSH);
  writeFileSync(join(home, '.yagent', 'config', 'config.toml'), `api_key = "${CONFIG_KEY}"\n`);
  writeFileSync(join(home, '.netrc'), NETRC);
  writeFileSync(join(home, 'outside', '.env'), DOTENV);
  writeFileSync(join(home, 'projects', 'other', '.env.local'), DOTENV);
  symlinkSync('../outside', join(ws, 'dl'));
  process.env.HOME = home;
  process.env.YAGENT_HOME = join(home, '.yagent');
  // this process stands for yagent: its environment holds a key the shell must never see
  process.env.YAGENT_SANDBOX_PARENT_SECRET = PARENT_SECRET;
  env = buildShellEnv(process.env);
});
afterEach(() => {
  for (const [k, v] of Object.entries({ HOME: saved.HOME, YAGENT_HOME: saved.YAGENT_HOME, YAGENT_SANDBOX_PARENT_SECRET: saved.SECRET })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  base.cleanup();
});

function run(command: string, writable: string[] = []): Promise<SandboxedRun> {
  if (!sandboxed) throw new Error('no sandbox');
  const boundary = new Boundary(ws, boundaryPolicy(process.env)).resolved();
  return runSandboxed({ command, cwd: ws, env, timeoutMs: 20_000, signal: new AbortController().signal, support: sandboxed, workspace: ws, boundary, home, writable });
}

/** Host processes whose command line holds `marker` (the sandbox's own pids mean nothing out here). */
function withMarker(marker: string): number[] {
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
    try {
      return readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  }).map(Number);
}

/** Polls (bounded) until no host process holds `marker`: the kernel kills a namespace's members when its init ends,
 *  and each takes a moment to leave the process table. Returns what is left at the deadline. */
async function goneSoon(marker: string, ms = 20_000): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const left = withMarker(marker);
    if (left.length === 0 || Date.now() > end) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!sandboxed)('the sandbox alone, whatever the words', () => {
  it.each([
    String.raw`cat ~/.s\sh/id_rsa`, 'cat ~/.ss?/id_rsa', 'cat ~/.s*/id_rsa', 'cat ~/{.ssh,x}/id_rsa',
    String.raw`cat ~/.yagen\t/config/config.toml`, 'cat ~/.yag*/config/config.toml', 'cat ~/.net*', 'cat ~/outside/.en*',
    'cat ~/.*/*', 'grep -r zz- ~', 'cd ~ && cat .ssh/id_rsa .netrc', 'cat $(printf %s "$HOME")/.ssh/id_rsa', 'tar cf - ~ 2>/dev/null | strings',
  ])('%s shows no secret', async (command) => {
    const r = await run(command);
    for (const secret of [SSH, CONFIG_KEY, NETRC, DOTENV]) expect(r.result.output, command).not.toContain(secret);
  });

  it("yagent's process and environment are out of sight: a PID namespace of its own", async () => {
    const r = await run(String.raw`echo "pid=$$ ppid=$PPID"; cat /proc/$PPID/environ /proc/*/environ | tr '\0' '\n'; ps eww $PPID; ls /proc | grep -c '^[0-9]'`);
    expect(r.result.output).toMatch(/pid=2 ppid=1/);
    expect(r.result.output).not.toContain(PARENT_SECRET);
    expect(r.result.output).not.toContain(String(process.pid));
  });

  it('writes land only in the workspace and the private temp dir; a refused place is reported, a denied one never offered', async () => {
    const r = await run(String.raw`echo in > inside.txt; t=$(mktemp) && echo tmp > "$t" && cat "$t"; echo out > ../outside/x; echo key >> ~/.s\sh/authorized_keys; echo k >> ~/.yag*/config/config.toml; touch ~/planted`);
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(r.result.output).toContain('tmp');
    expect(existsSync(join(home, 'outside', 'x'))).toBe(false);
    expect(existsSync(join(home, '.ssh', 'authorized_keys'))).toBe(false);
    expect(existsSync(join(home, 'planted'))).toBe(false);
    expect(readFileSync(join(home, '.yagent', 'config', 'config.toml'), 'utf8')).not.toContain('k\n');
    expect(r.refused).toEqual(expect.arrayContaining([join(home, 'outside'), home]));
    expect(r.refused.some((p) => p.includes('.ssh') || p.includes('.yagent'))).toBe(false);
    expect(r.deniedPlaces.some((p) => p.startsWith(join(home, '.ssh')))).toBe(true);
    // approved, the same command writes there (never in a denied place)
    const again = await run('echo out > ../outside/x; echo key >> ~/.ssh/authorized_keys', [join(home, 'outside'), home]);
    expect(readFileSync(join(home, 'outside', 'x'), 'utf8')).toBe('out\n');
    expect(existsSync(join(home, '.ssh', 'authorized_keys'))).toBe(false);
    expect(again.deniedPlaces.length).toBeGreaterThan(0);
  });

  it('nothing it starts outlives it: background and setsid processes end with the command', async () => {
    const r = await run('setsid sleep 3917.25 </dev/null >/dev/null 2>&1 & (sleep 3917.5 &) ; nohup sleep 3917.75 >/dev/null 2>&1 & echo started');
    expect(r.result.output).toContain('started');
    for (const marker of ['3917.25', '3917.5', '3917.75']) expect(await goneSoon(`sleep\0${marker}`), marker).toEqual([]);
  });

  it('a timeout kills the whole tree, a TERM-ignoring setsid grandchild included', async () => {
    if (!sandboxed) return;
    const boundary = new Boundary(ws, boundaryPolicy(process.env)).resolved();
    const r = await runSandboxed({ command: `setsid bash -c 'trap "" TERM; sleep 3918.5' & sleep 30`, cwd: ws, env, timeoutMs: 500, killGraceMs: 200, pipeGraceMs: 100, signal: new AbortController().signal, support: sandboxed, workspace: ws, boundary, home, writable: [] });
    expect(r.result.timedOut).toBe(true);
    expect(await goneSoon('sleep\x003918.5')).toEqual([]);
  });

  it('allow_read makes a place inside a masked zone readable again, read-only', async () => {
    writeFileSync(join(home, '.ssh', 'config'), 'Host example');
    if (!sandboxed) return;
    const boundary = new Boundary(ws, boundaryPolicy(process.env, ['~/.ssh/config'])).resolved();
    const r = await runSandboxed({ command: 'cat ~/.ssh/config; cat ~/.ssh/id_rsa; echo x >> ~/.ssh/config', cwd: ws, env, timeoutMs: 20_000, signal: new AbortController().signal, support: sandboxed, workspace: ws, boundary, home, writable: [] });
    expect(r.result.output).toContain('Host example');
    expect(r.result.output).not.toContain(SSH);
    expect(readFileSync(join(home, '.ssh', 'config'), 'utf8')).toBe('Host example');
  });
});

describe.skipIf(!sandboxed)('run_bash through the adapter with the sandbox', () => {
  const recording = (answers: boolean[], asked: string[]): Authorizer => (req) => {
    asked.push(req.question);
    return Promise.resolve(answers.shift() === true ? { decision: 'approved', scope: 'once' } : { decision: 'denied', reason: 'test says no' });
  };
  const deps = (authorizer: Authorizer) => makeDeps(ws, { authorizer, env: { shellEnv: env, sandbox: shellSandbox('auto', [], env, home) } });

  it('an approved outside write the sandbox refused is re-run with that place writable only after a second approval', async () => {
    const asked: string[] = [];
    const denied = await callTool(call('run_bash', { command: 'echo out > ../outside/x', is_dangerous: false }), deps(recording([true, false], asked)), new AbortController().signal);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatch(/read-only .*run the command again with it writable/);
    expect(denied.content).toMatch(/the sandbox refused a write to .*outside.*not approved/);
    expect(existsSync(join(home, 'outside', 'x'))).toBe(false);
    const asked2: string[] = [];
    const approved = await callTool(call('run_bash', { command: 'echo out > ../outside/x', is_dangerous: false }), deps(recording([true, true], asked2)), new AbortController().signal);
    expect(approved.content).toMatch(/run again with it writable \(approved\)/);
    expect(readFileSync(join(home, 'outside', 'x'), 'utf8')).toBe('out\n');
  });

  it('a command inside the workspace asks nothing and runs in the sandbox', async () => {
    const asked: string[] = [];
    const r = await callTool(call('run_bash', { command: 'echo "pid=$$" > p.txt; cat p.txt', is_dangerous: false }), deps(recording([], asked)), new AbortController().signal);
    expect(asked).toEqual([]);
    expect(r.content).toContain('pid=2');
  });
});
