// A pause given between "the client has the task id" and "the Director started" holds the task, not lost (TUI Ctrl-P right after Enter).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/actors/agents/run-task.js';
import type { RolloutRecord } from '../../src/store/api.js';
import { parseRecords } from '../../src/store/rollout/lines.js';
import { until, world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
}, 60_000);
afterAll(async () => w?.close());

/** The task's one rollout (the Director's: nothing was delegated) as committed so far (group commit: within 20 ms). */
const directorRollout = (): RolloutRecord[] => {
  const root = join(w.home, 'data', 'rollout');
  const dirs = existsSync(root) ? readdirSync(root) : [];
  const files = dirs.flatMap((d) => readdirSync(join(root, d)).filter((f) => f.endsWith('.jsonl')).map((f) => join(root, d, f)));
  const text = files.length === 1 && files[0] ? readFileSync(files[0], 'utf8') : '';
  return parseRecords(text).records; // a line still being written is not a record yet
};

describe('pause before the task starts', () => {
  it('an unannounced task cannot be paused; an announced one is paused at its first step and runs on when resumed', async () => {
    expect(w.rt.pauseTask('never-announced')).toBe(false);
    w.fake.script('director', ...Array.from({ length: 4 }, () => ({ text: 'ran after resume' })));
    w.rt.reserveTask('early-1');
    expect(w.rt.pauseTask('early-1')).toBe(true);
    await until(() => w.envelopes.some((e) => e.taskId === 'early-1' && e.payload.type === 'task_paused'), 'task_paused for every client');
    const run = runTask(w.rt, { ...w.base, prompt: 'go', taskId: 'early-1' });
    await until(() => w.rt.liveActors().some((n) => n.includes('director')), 'the Director to start');
    // the loop records its first messages right before its first pause gate: once they are on disk it is at the gate
    await until(() => directorRollout().some((r) => r.type === 'response_item' && r.payload.role === 'user'), 'the Director at its first step');
    // past an open gate the step's turn_context is appended in the same tick, so it would be in the same commit
    expect(directorRollout().filter((r) => r.type === 'turn_context')).toEqual([]);
    expect(w.fake.requestsFor('director')).toHaveLength(0);
    expect(w.rt.resumeTask('early-1')).toBe(true);
    const r = await run;
    expect(r.error ?? '').toBe('');
    expect(r).toMatchObject({ stopReason: 'plain_text', text: 'ran after resume' });
    await w.rt.endTask('early-1');
    expect(w.rt.pauseTask('early-1')).toBe(false); // the reservation ended with the task
  });
});
