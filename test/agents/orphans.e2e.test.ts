// Issue 10, no orphans from a real agent: the Coding actor's run_bash (`sleep 300` with a backgrounded
// grandchild) is running when its worker is ended — hard (terminate, as a crash or an OOM ends it: no stop hook,
// no abort reaches run_bash) or gracefully (terminateChild). Checked by PID while this process lives on, so the
// CLI's exit hook is not what kills the group: the main-thread registry (trackProcessGroup) must.
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTask, type TaskResult } from '../../src/actors/agents/run-task.js';
import { groupMembers, groupOf, GONE_DEADLINE_MS, noLiveMember, ownChildren } from '../runtime/proc-helpers.js';
import { call, world, type World } from '../sessions/helpers.js';

let w: World;
/** How long a group may take to go on a loaded 2-core box: the wait ends at the event (group empty), not at this. */
const LOADED_DEADLINE_MS = GONE_DEADLINE_MS;
const started: number[] = [];
beforeEach(async () => {
  w = await world();
}, 60_000);
afterEach(async () => {
  // a failing test must not leave its sleeps behind
  for (const pgid of started.splice(0)) try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
  await w?.close();
});

async function until(cond: () => boolean, what: string, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The Director delegates to Coding, whose run_bash writes its group id and sleeps with a background sleep.
 *  Resolves once the group and its grandchild run, with the delegation's actor name. */
async function codingInBash(taskId: string): Promise<{ pgid: number; actor: string; result: Promise<TaskResult | Error> }> {
  // found on the host by this sleep's unique argument: inside the sandbox `$$` is pid 2 of its own namespace
  const marker = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
  w.fake.script('director', call('delegate_coding', { task: 'run the long command', context_refs: [] }), { text: 'went on after the worker died' });
  w.fake.script('coding', call('run_bash', { command: `sleep 300 & sleep ${marker}`, is_dangerous: false, timeout_seconds: 600 }));
  // max_restarts 0: a dead worker is reported to the Director (C), not started again
  const config = { ...w.base.config, resume: { ...w.base.config.resume, maxRestarts: 0 } };
  const result = runTask(w.rt, { ...w.base, config, prompt: 'run it', taskId, yolo: true }).catch((e: Error) => e);
  await until(() => groupOf(['sleep', marker]) !== undefined, 'run_bash started');
  const pgid = groupOf(['sleep', marker]) ?? -1;
  started.push(pgid);
  await until(() => groupMembers(pgid).length >= 2, 'the background grandchild started');
  const actor = w.rt.liveActors().find((n) => /^delegation:.*:coding$/.test(n));
  if (actor === undefined) throw new Error('no coding delegation is running');
  return { pgid, actor, result };
}

describe('a run_bash group dies with the agent worker that started it', () => {
  it('the worker is terminated mid-run_bash (no stop hook runs): no process of the group once the kill grace is over', async () => {
    const { pgid, actor, result } = await codingInBash('hard');
    const handle = w.rt.task('hard')?.supervisor.handleOf(actor) as { worker?: Worker } | undefined;
    expect(handle?.worker).toBeDefined();
    await handle?.worker?.terminate();
    // the code bounds it (SIGTERM, SIGKILL after GROUP_KILL_GRACE_MS); the test's deadline only has to outlast a loaded box
    expect(await noLiveMember(pgid, LOADED_DEADLINE_MS)).toEqual([]);
    expect(await result).toMatchObject({ text: 'went on after the worker died' });
  }, 180_000);

  it('the worker is stopped mid-run_bash (terminateChild): no process of the group once the grace is over, and no zombie of ours', async () => {
    const { pgid, actor, result } = await codingInBash('graceful');
    await w.rt.task('graceful')?.supervisor.terminateChild(actor, 'stopped by the test');
    expect(await noLiveMember(pgid, LOADED_DEADLINE_MS)).toEqual([]);
    expect(ownChildren(pgid)).toEqual([]);
    expect(await result).toMatchObject({ text: 'went on after the worker died' });
  }, 180_000);
});
