// No orphans through the CLI: a run_bash group (`sleep 300` with a backgrounded grandchild) started by the
// Coding agent is gone 2 s after the CLI exits through -Q, a second Ctrl-C, SIGTERM, SIGHUP or an uncaught error.
// Checked by PID.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupOf, noLiveMember, groupMembers, type Member, GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';
import { childReaper, collect, GOOD_CONFIG, project, sandbox, start, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
const reaper = childReaper();
const started: number[] = [];
afterEach(() => {
  reaper.reap();
  // a failing test must not leave its sleeps behind
  for (const pgid of started.splice(0)) try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
  sb?.cleanup();
});

/** The Director delegates to Coding, whose run_bash starts a background sleep and sleeps (`marker`: the second
 *  sleep's unique argument, by which the test finds the group on the host: inside the sandbox `$$` is pid 2).
 *  `extra` is more module code: the fake model runs in the CLI process, so it can fail that process. */
function bashScript(marker: string, extra = ''): string {
  const command = `sleep 300 & sleep ${marker}`;
  return `${extra}
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
export default {
  director: [call('delegate_coding', { task: 'run the long command', context_refs: [] }), say('done'), say('done')],
  coding: [call('run_bash', { command: ${JSON.stringify(command)}, is_dangerous: false, timeout_seconds: 600 }), say('done'), say('done')],
};
`;
}

/** True while `pid` runs (a zombie is not running). */
function alivePid(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, ms: number, label: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts `yagent -p -y` on the script and resolves once the run_bash group and its grandchild run. */
async function startWithGroup(extra: string[], code?: (pgidFile: string) => string, config = GOOD_CONFIG): Promise<{ child: ReturnType<typeof start>; done: ReturnType<typeof collect>; pgid: number }> {
  sb = sandbox(config);
  const ws = project(sb, { 'package.json': '{"name":"orphans"}\n' });
  const pgidFile = join(sb.dir, 'pgid');
  const marker = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
  const child = start(['-p', 'run it', '-y', ...extra], { ...withScript(sb, bashScript(marker, code?.(pgidFile))), YAGENT_TRACE: '1' }, { cwd: ws });
  reaper.push(child);
  const done = collect(child);
  await until(() => groupOf(['sleep', marker]) !== undefined, 60_000, 'run_bash started');
  const pgid = groupOf(['sleep', marker]) ?? -1;
  started.push(pgid);
  await until(() => groupMembers(pgid).length >= 2, 60_000, 'background grandchild started');
  return { child, done, pgid };
}

/** A fresh run (`extra` flags) sent `signal`: its exit code and the run_bash group's members alive 2 s on. */
async function quitWith(extra: string[], signal: NodeJS.Signals): Promise<{ code: number | null; alive: Member[] }> {
  const { child, done, pgid } = await startWithGroup(extra);
  child.kill(signal);
  const r = await done;
  const alive = await noLiveMember(pgid, GONE_DEADLINE_MS);
  // YAGENT_TRACE names the groups the exit hook killed: a survivor's report says whether its group was known
  if (alive.length > 0) process.stderr.write(`group ${pgid} survived; the CLI's stderr:\n${r.stderr}\n`);
  return { code: r.code, alive };
}

// each test starts a whole CLI run and waits for events (generous bounds): under load that takes longer than 30 s
describe('no process group outlives the CLI', () => {
  it('-Q: the first Ctrl-C quits at once, and the group is killed', async () => {
    const { code, alive } = await quitWith(['-Q'], 'SIGINT');
    expect(code).toBe(130);
    expect(alive).toEqual([]);
  }, 120_000);

  it('a second Ctrl-C quits at once, and the group is killed', async () => {
    const { child, done, pgid } = await startWithGroup([]);
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.kill('SIGINT');
    await until(() => err.includes('cancelling'), 60_000, 'the first Ctrl-C acknowledged');
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  }, 120_000);

  it('SIGTERM: the run is cancelled and the group is killed', async () => {
    const { code, alive } = await quitWith([], 'SIGTERM');
    expect(code).toBe(130);
    expect(alive).toEqual([]);
  }, 120_000);

  it('SIGHUP (the terminal went away): quits at once, and the group is killed', async () => {
    const { code, alive } = await quitWith([], 'SIGHUP');
    expect(code).toBe(130);
    expect(alive).toEqual([]);
  }, 120_000);

  // sandbox off: nothing but the watchdog ends the group (bubblewrap's --die-with-parent would end it too)
  it.each(['off', 'auto'])('kill -9 of the CLI (no exit hook runs, as under the OOM killer), sandbox %s: the watchdog ends the group and its background sleep', async (mode) => {
    const { child, done, pgid } = await startWithGroup([], undefined, `${GOOD_CONFIG}\n[security]\nsandbox = "${mode}"\n`);
    const members = groupMembers(pgid).map((m) => m.pid);
    expect(members.length).toBeGreaterThanOrEqual(2);
    child.kill('SIGKILL');
    expect((await done).code).toBe(null);
    // the event is the group's end (the watchdog: TERM, KILL a second later); the deadline only outlasts a loaded box
    expect(await noLiveMember(pgid, 30_000)).toEqual([]);
    for (const pid of members) expect(alivePid(pid), `pid ${pid}`).toBe(false);
  }, 120_000);

  it('an uncaught error in the CLI process: it exits 1, and the group is killed', async () => {
    // thrown from a timer of the CLI's main thread once the test has seen the run_bash group: nothing catches it
    // (a throw on the pgid file alone could kill the group before the test saw it, under load)
    const crash = (pgidFile: string): string => `import { existsSync } from 'node:fs';
const poll = setInterval(() => { if (existsSync(${JSON.stringify(`${pgidFile}.go`)})) { clearInterval(poll); throw new Error('uncaught in the CLI process'); } }, 20);`;
    const { done, pgid } = await startWithGroup([], crash);
    writeFileSync(join(sb?.dir ?? '', 'pgid.go'), '');
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('uncaught in the CLI process');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  }, 120_000);
});
