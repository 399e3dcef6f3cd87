// Issue 24 item 4: no process outlives the yagent that started it, however it died. The sweep at start ends a marked
// process whose owner is gone (pid AND start time: a reused pid is not the owner), never one whose owner runs; the
// watchdog ends a registered group (no mark: `env -i`) when its owner is killed with SIGKILL. Checked by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { markOf, OWNER_ENV, ownerMark, procStartTime, sweepOrphans } from '../../src/runtime/owner-mark.js';
import { ROOT } from '../cli/helpers.js';
import { groupMembers, noLiveMember } from './proc-helpers.js';

const started: number[] = [];
afterEach(() => {
  for (const pgid of started.splice(0)) try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
});

/** A detached `sleep 300 & sleep 300` group carrying `mark` (or none); resolves once both sleeps run. */
async function markedGroup(mark: string | null, name = OWNER_ENV): Promise<number> {
  const env = { ...process.env };
  delete env[OWNER_ENV];
  if (mark !== null) env[name] = mark;
  const c = spawn('bash', ['-c', 'sleep 300 & sleep 300'], { detached: true, stdio: 'ignore', env });
  const pgid = c.pid ?? -1;
  started.push(pgid);
  c.unref();
  await until(() => groupMembers(pgid).length >= 2, 'the marked group to start');
  return pgid;
}

/** Live watchdog shells of the owner `pid` started at `start` (their argv names its mark). */
function watchdogs(pid: number, start: string): number[] {
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
    try {
      const argv = readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0');
      return argv.includes('yagent-watchdog') && argv.at(-2) === markOf(pid, start) && procStartTime(Number(n)) !== null;
    } catch {
      return false;
    }
  }).map(Number);
}

/** Polls the process table until `cond`; a generous deadline in time (a loaded box), never a count of polls. */
async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The mark of a process that ran and is gone. */
async function deadOwnerMark(): Promise<string> {
  const c: ChildProcess = spawn('sleep', ['30'], { stdio: 'ignore' });
  const start = procStartTime(c.pid ?? -1);
  c.kill('SIGKILL');
  await once(c, 'exit');
  return markOf(c.pid ?? -1, start ?? '');
}

describe.skipIf(process.platform !== 'linux')('orphans of a yagent that is gone', () => {
  it('the sweep kills the groups whose owner is gone or is a reused pid, and leaves the live owner\'s group', async () => {
    // planted under a name of this test's own: a yagent another test starts meanwhile sweeps OWNER_ENV marks machine-wide
    // and would end these orphans before this sweep could (seen in CI under load)
    const name = `YAGENT_OWNER_TEST_${process.pid}`;
    const dead = await markedGroup(await deadOwnerMark(), name);
    // this process's pid with another start time: what a pid reused by an unrelated process looks like
    const reused = await markedGroup(markOf(process.pid, '1'), name);
    const mine = await markedGroup(ownerMark(), name);
    const unmarked = await markedGroup(null);
    const swept = await sweepOrphans(name);
    expect(swept).toEqual(expect.arrayContaining([dead, reused]));
    expect(await noLiveMember(dead, 30_000)).toEqual([]);
    expect(await noLiveMember(reused, 30_000)).toEqual([]);
    expect(groupMembers(mine).filter((m) => m.state !== 'Z').length).toBeGreaterThanOrEqual(2);
    expect(groupMembers(unmarked).filter((m) => m.state !== 'Z').length).toBeGreaterThanOrEqual(2);
  });

  it('kill -9 of the owner: the watchdog ends a group it registered even without the mark (env -i), not one it released', async () => {
    const pgid = await markedGroup(null);
    const released = await markedGroup(null);
    // the owner: a node process that starts the watchdog and registers the groups, then waits to be killed
    const src = `import { startWatchdog } from ${JSON.stringify(`${ROOT}/dist/src/runtime/watchdog.js`)};
const w = startWatchdog(); w.group('register', ${released}); w.group('register', ${pgid}); w.group('unregister', ${released});
process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ['--input-type=module', '-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    owner.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await until(() => out.includes('ready') || owner.exitCode !== null, 'the owner to start its watchdog', 60_000);
    if (!out.includes('ready')) throw new Error('the owner exited before starting its watchdog');
    expect(groupMembers(pgid).filter((m) => m.state !== 'Z').length).toBeGreaterThanOrEqual(2);
    const ownerStart = procStartTime(owner.pid ?? -1) ?? '';
    expect(watchdogs(owner.pid ?? -1, ownerStart)).toHaveLength(1);
    owner.kill('SIGKILL');
    await once(owner, 'exit');
    expect(await noLiveMember(pgid, 30_000)).toEqual([]);
    // the watchdog is done once its own process is gone: then the released group must still run
    await until(() => watchdogs(owner.pid ?? -1, ownerStart).length === 0, 'the watchdog to finish');
    expect(groupMembers(released).filter((m) => m.state !== 'Z').length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
