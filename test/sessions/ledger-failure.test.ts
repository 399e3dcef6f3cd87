// The Director boots while the ledger's turn_start is written (the store is off the path to the first model
// call), but a turn_start that cannot be written still fails the task and stops the Director.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/actors/agents/run-task.js';
import { projectIdFor } from '../../src/store/data-paths.js';
import { sessionsDir } from '../../src/store/sessions.js';
import { until, world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
}, 60_000);
afterAll(async () => w?.close());

describe('session ledger failure at turn start', () => {
  it('fails the task with the ledger error; the Director is stopped, not left running', async () => {
    // a file where the project's ledger directory must go: every append fails (also for root)
    const dir = sessionsDir(w.home, projectIdFor(w.base.workspace));
    mkdirSync(join(dir, '..'), { recursive: true });
    writeFileSync(dir, 'not a directory');
    w.fake.script('director', { fault: { kind: 'stall', afterEvents: 0 } });
    await expect(runTask(w.rt, { ...w.base, prompt: 'go', taskId: 'ledger-1' })).rejects.toThrow(/ENOTDIR|EEXIST|not a directory/i);
    await until(() => !w.rt.liveActors().some((n) => n.includes('director')), 'the Director stopped');
    expect(w.rt.liveActors().filter((n) => n.includes('director'))).toEqual([]);
    expect(w.envelopes.some((e) => e.taskId === 'ledger-1' && e.payload.type === 'task_end')).toBe(true);
  });
});
