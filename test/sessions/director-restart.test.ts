// A crashed Director is restarted from its rollout like any delegation (issue 24 item 5): real runtime, workers and
// store; only the model is scripted. The crash is its worker's `terminate()` (no stop hook, as a throw or an OOM).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTask, type TaskResult } from '../../src/actors/agents/run-task.js';
import type { SessionMeta, StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR, projectIdFor } from '../../src/store/client.js';
import { call, exit, until, world, type World } from './helpers.js';

let w: World;
beforeEach(async () => {
  w = await world();
}, 60_000);
afterEach(async () => w?.close());

const text = (req: { body: Record<string, unknown> } | undefined): string => JSON.stringify(req?.body.messages ?? []);
const say = (t: string) => ({ text: t });
const SIDE = 'echo ran >> side.txt';

/** The Director delegates; Coding runs one side effect and stalls on its next call; then the Director's worker dies. */
async function directorCrash(maxRestarts: number, beforeCrash?: () => Promise<void>): Promise<TaskResult> {
  w.fake.script('director', call('delegate_coding', { task: 'run the side effect, then finish', context_refs: [] }), ...Array.from({ length: 4 }, () => say('all done after the restart')));
  w.fake.script('coding', call('run_bash', { command: SIDE, is_dangerous: false }), { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }, exit('side effect done once'));
  const config = { ...w.base.config, resume: { ...w.base.config.resume, maxRestarts } };
  const running = runTask(w.rt, { ...w.base, config, prompt: 'do the work', taskId: 'dcrash', yolo: true });
  await until(() => w.fake.requestsFor('coding').length >= 2, "Coding's second model call", 60_000);
  expect(w.fake.requestsFor('coding')).toHaveLength(2);
  const handle = w.rt.task('dcrash')?.supervisor.handleOf('director') as { worker?: Worker } | undefined;
  expect(handle?.worker).toBeDefined();
  await beforeCrash?.();
  await handle?.worker?.terminate();
  return running;
}

describe('a crashed Director', () => {
  it('is restarted from its rollout; its interrupted delegation continues (B), nothing re-runs, the turn finishes', async () => {
    const r = await directorCrash(2);
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ stopReason: 'plain_text', text: 'all done after the restart' });
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
    expect(w.fake.requestsFor('coding')).toHaveLength(3); // continued from its rollout, not started again
    const restarted = w.envelopes.filter((e) => e.payload.type === 'delegation_restarted');
    expect(restarted.map((e) => e.payload)).toEqual([expect.objectContaining({ child: 'director', attempt: 1, maxRestarts: 2, reason: expect.stringMatching(/ACTOR_/) })]);
    const resumed = text(w.fake.requestsFor('director')[1]);
    expect(resumed).toContain('do the work'); // the restarted Director continues its own conversation
    expect(resumed).toContain('side effect done once');
    expect(r.usageByAgent.find((e) => e.agent === 'director')?.calls).toBe(2); // both incarnations' calls
    expect(w.envelopes.filter((e) => e.payload.type === 'task_end')).toHaveLength(1);
  }, 120_000);

  it('an incarnation that died before its first records (its rollout holds nothing) is passed over: the restart continues the one before it', async () => {
    const r = await directorCrash(2, async () => {
      const store = w.rt.connect<StoreApi>(STORE_ACTOR);
      const [head] = (await store.taskRollouts(projectIdFor(w.base.workspace), 'dcrash')).filter((h) => h.meta.delegationId === null);
      const { git: _git, ...meta } = head?.meta ?? ({} as SessionMeta);
      const empty = await store.openRollout({ ...meta, sessionId: 'restarted-then-killed' });
      await store.drain(empty.path);
    });
    expect(r).toMatchObject({ stopReason: 'plain_text', text: 'all done after the restart' });
    expect(readFileSync(join(w.base.workspace, 'side.txt'), 'utf8')).toBe('ran\n');
    expect(w.fake.requestsFor('coding')).toHaveLength(3);
    expect(text(w.fake.requestsFor('director')[1])).toContain('do the work');
  }, 120_000);

  it('past max_restarts the turn ends with the degraded report the user sees; nothing of the task is left running', async () => {
    const r = await directorCrash(0);
    expect(r.stopReason).toBe('panic');
    expect(r.text).toMatch(/^The Director crashed 1 time \(last: ACTOR_\w+[^)]*\) and was not restarted: \[resume\] max_restarts = 0\./);
    expect(r.text).toContain('What its ledger holds:');
    expect(w.envelopes.some((e) => e.payload.type === 'ai_response' && e.payload.text === r.text)).toBe(true);
    expect(w.rt.liveActors().filter((n) => n.startsWith('delegation:'))).toEqual([]);
    expect(w.fake.requestsFor('director')).toHaveLength(1);
  }, 120_000);
});
