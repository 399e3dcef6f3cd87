// A browser never outlives the worker that started it: the driver registers its process group with the runtime,
// which kills the group when the worker ends — terminated after its grace, crashed, or stopped — checked by pid.
// After each end the group must also have left the registry (nothing left to kill at CLI exit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processGroups } from '../../src/runtime/process-groups.js';
import { startRuntime, until, type TestRuntime } from '../runtime/helpers.js';
import { groupMembers, noLiveMember, GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';
import { CHROMIUM, chromiumFound, world, type World } from './helpers.js';

const FIXTURE = 'src/actors/browser/testing/fixture-browser.js';
const pgidBuf = new SharedArrayBuffer(8 * 4);
const pgids = new Int32Array(pgidBuf);
let env: TestRuntime;
let w: World;
let slot = 0;

beforeAll(async () => {
  w = world();
  env = await startRuntime({ spares: 0, shared: { pgids: pgidBuf } });
});
afterAll(async () => {
  await env?.rt.shutdown(3000);
  // a failing test must not leave a browser behind
  for (const pgid of pgids) if (pgid > 1) try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
  w?.cleanup();
});

async function startBrowser(task: string, end: 'spin' | 'crash' | 'wait', shutdownMs = 2000): Promise<{ pgid: number; result: Promise<unknown> }> {
  const s = slot++;
  const t = await env.rt.startTask(task);
  const result = t
    .spawn({ name: 'browser', module: FIXTURE, input: { executable: CHROMIUM, slot: s, end, workspace: w.workspace }, shutdownMs })
    .catch((e: unknown) => e);
  await until(() => Atomics.load(pgids, s) !== 0, 30_000, 'the browser started');
  const pgid = Atomics.load(pgids, s);
  expect(pgid).toBeGreaterThan(1);
  expect(groupMembers(pgid).filter((m) => m.state !== 'Z').length).toBeGreaterThan(1); // chromium and its helpers
  // registered with the main thread's registry, which kills it when the worker goes (Chromium also exits when its
  // pipe closes, so the registration is checked here directly, not only through the death)
  await until(() => processGroups.groups().includes(pgid), 20_000, 'the browser group registered with the main thread');
  return { pgid, result };
}

describe.skipIf(!chromiumFound)('the browser dies with its worker (by pid)', () => {
  it('a worker stuck in a loop is terminated after its grace: no process of the browser group is left', async () => {
    const { pgid } = await startBrowser('br-spin', 'spin', 300);
    await env.rt.endTask('br-spin');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    await until(() => !processGroups.groups().includes(pgid), 20_000, 'the group left the registry');
  });

  it('a crashed worker: no process of the browser group is left', async () => {
    const { pgid, result } = await startBrowser('br-crash', 'crash');
    expect(((await result) as { code?: string }).code).toBe('ACTOR_CRASHED');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  });

  it('a worker stopped gracefully without closing its browser: the group is ended too', async () => {
    const { pgid } = await startBrowser('br-stop', 'wait');
    await env.rt.endTask('br-stop');
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
  });
});
