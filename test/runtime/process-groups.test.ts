// No orphans: a process group an actor started dies with the actor's worker, whatever ended it; and a
// child the worker started is reaped (no zombie of this process) after a graceful stop. Checked by PID.
import { childGroupLeadersSync } from '../../src/runtime/child-groups.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessGroupRegistry, processGroups } from '../../src/runtime/process-groups.js';
import { startRuntime, until, type TestRuntime } from './helpers.js';
import { groupMembers, noLiveMember, ownChildren, spawnGroup, GONE_DEADLINE_MS } from './proc-helpers.js';

const PROCS = 'src/runtime/testing/fixture-procs.js';
const pgidBuf = new SharedArrayBuffer(16 * 4);
const pgids = new Int32Array(pgidBuf);
let env: TestRuntime;
let slot = 0;

beforeAll(async () => {
  env = await startRuntime({ spares: 1, shared: { pgids: pgidBuf } });
});
afterAll(async () => {
  await env.rt.shutdown(3000);
  // a failing test must not leave its sleeps behind
  for (const pgid of pgids) if (pgid > 1) try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
});

type End = 'wait' | 'spin' | 'crash' | 'oom' | 'return' | 'signal_only';

/** Spawns the fixture in a fresh task and waits until its group (sleep + backgrounded sleep) runs. */
async function startGroup(task: string, end: End, extra: { shutdownMs?: number; oom?: boolean; ignoreTerm?: boolean } = {}): Promise<{ pgid: number; result: Promise<unknown> }> {
  const s = slot++;
  const t = await env.rt.startTask(task);
  const result = t
    .spawn({
      name: 'procs',
      module: PROCS,
      input: { end, slot: s, ...(extra.ignoreTerm ? { ignoreTerm: true } : {}) },
      shutdownMs: extra.shutdownMs ?? 2000,
      ...(extra.oom ? { resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 } } : {}),
    })
    .catch((e: unknown) => e);
  await until(() => Atomics.load(pgids, s) > 0, 20_000, 'group started');
  const pgid = Atomics.load(pgids, s);
  await until(() => groupMembers(pgid).length >= 2, 20_000, 'background grandchild started');
  return { pgid, result };
}

describe('process groups die with their actor', () => {
  it('terminateChild (graceful stop): no process of the group 2 s later, and no zombie', async () => {
    const { pgid } = await startGroup('pg-stop', 'wait');
    await env.rt.endTask('pg-stop');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    expect(ownChildren(pgid)).toEqual([]);
  });

  it('terminate after the shutdown grace (a worker spinning in for(;;)): no live process of the group', async () => {
    const { pgid } = await startGroup('pg-spin', 'spin', { shutdownMs: 300 });
    await env.rt.endTask('pg-spin');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  });

  it('a crash (uncaught error in the worker): no live process of the group', async () => {
    const { pgid, result } = await startGroup('pg-crash', 'crash');
    expect((await result as { code?: string }).code).toBe('ACTOR_CRASHED');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  });

  it('an out-of-memory worker exit: no live process of the group', async () => {
    const { pgid, result } = await startGroup('pg-oom', 'oom', { oom: true });
    expect((await result as { code?: string }).code).toBe('ACTOR_OOM');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  });

  it('run() returns while its group still runs: the group is ended and reaped', async () => {
    const { pgid, result } = await startGroup('pg-return', 'return');
    expect(await result).toBe(pgid);
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    expect(ownChildren(pgid)).toEqual([]);
  });

  it('run() returns while its group ignores SIGTERM: the worker kills it within its grace and reaps it (no zombie)', async () => {
    const { pgid, result } = await startGroup('pg-trap', 'return', { ignoreTerm: true });
    expect(await result).toBe(pgid);
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    expect(ownChildren(pgid)).toEqual([]);
  });

  it('a stop while the group ignores SIGTERM: killed within the grace and reaped (no zombie)', async () => {
    const { pgid } = await startGroup('pg-trap-stop', 'wait', { ignoreTerm: true });
    await env.rt.endTask('pg-trap-stop');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    expect(ownChildren(pgid)).toEqual([]);
  });

  it('a cancelled command (group signalled, exit not awaited) leaves no zombie once the worker stopped', async () => {
    const { pgid } = await startGroup('pg-zombie', 'signal_only');
    await env.rt.endTask('pg-zombie');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    expect(ownChildren(pgid)).toEqual([]);
  });
});

describe('a hard exit right after a registration', () => {
  it("killAllSync sees a group whose control message the main thread has not read yet (the shared table)", async () => {
    const s = slot++;
    const go = slot++;
    const t = await env.rt.startTask('pg-race');
    const result = t.spawn({ name: 'procs', module: PROCS, input: { end: 'wait', slot: s, goSlot: go } }).catch((e: unknown) => e);
    await until(() => env.rt.liveActors().includes('procs'), 20_000, 'the fixture started');
    // from here this thread takes no event-loop turn (the worker's register message stays queued): let the
    // fixture spawn, wait until it published its pgid, then exit-kill at once as process.exit from a signal does
    Atomics.store(pgids, go, 1);
    Atomics.notify(pgids, go);
    const deadline = Date.now() + 20_000;
    while (Atomics.load(pgids, s) === 0 && Date.now() < deadline) Atomics.wait(pgids, s, 0, 10);
    const pgid = Atomics.load(pgids, s);
    if (pgid === 0) throw new Error('timed out waiting for the fixture to publish its process group');
    expect(processGroups.groups()).not.toContain(pgid); // the message really is unread
    expect(processGroups.killAllSync()).toContain(pgid);
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    await env.rt.endTask('pg-race');
    await result;
  });
});

describe('the exit hook\'s second net', () => {
  it('a group led by a child of this process but never registered is found in /proc and killed by killAllSync', async () => {
    const child = spawnGroup(); // detached: its own group, led by our direct child; nobody registers it
    const pgid = child.pid ?? -1;
    await until(() => groupMembers(pgid).length >= 2, 20_000, 'group started');
    expect(processGroups.groups()).not.toContain(pgid);
    expect(childGroupLeadersSync()).toContain(pgid);
    expect(childGroupLeadersSync()).not.toContain(process.pid);
    expect(processGroups.killAllSync()).toContain(pgid);
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  });
});

describe('the main-thread registry', () => {
  it('killAllSync kills every registered group at once (the CLI exit path)', async () => {
    const reg = new ProcessGroupRegistry();
    const child = spawnGroup();
    const pgid = child.pid ?? -1;
    await until(() => groupMembers(pgid).length >= 2, 20_000, 'group started');
    reg.add('actor#x', pgid);
    expect(reg.killAllSync()).toEqual([pgid]);
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    expect(reg.groups()).toEqual([]);
  });

  it('never registers -1, 0 or 1 (signalling those would reach every process)', () => {
    const reg = new ProcessGroupRegistry();
    for (const bad of [-1, 0, 1, 2.5]) reg.add('a', bad);
    expect(reg.groups()).toEqual([]);
  });

  it('a watcher installed after groups were registered (a watchdog started late) is told of each of them first', () => {
    const reg = new ProcessGroupRegistry();
    reg.add('actor#a', 4001);
    reg.add('actor#b', 4002);
    reg.remove('actor#b', 4002);
    const seen: string[] = [];
    reg.watch((op, pgid) => seen.push(`${op} ${pgid}`));
    reg.add('actor#a', 4003);
    expect(seen).toEqual(['register 4001', 'register 4003']);
  });

});
