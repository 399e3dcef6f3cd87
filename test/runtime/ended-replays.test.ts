// A finished task's event replay is kept for the last ENDED_REPLAYS_KEPT ended tasks only: a long-running supervisor
// (`yagent serve`) would otherwise keep every finished task's replay buffer for ever (~0.5 MB each).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDED_REPLAYS_KEPT } from '../../src/runtime/task-registry.js';
import { startRuntime, type TestRuntime } from './helpers.js';

let env: TestRuntime;
beforeAll(async () => {
  env = await startRuntime({ spares: 0 });
});
afterAll(async () => {
  await env.rt.shutdown(3000);
});

describe('ended tasks', () => {
  it('keep their replay for the last ENDED_REPLAYS_KEPT of them; older ones are forgotten, a running one never', async () => {
    const { rt } = env;
    const say = (taskId: string): unknown => rt.dispatcher.publish({ name: 'fixture', taskId, delegationId: null }, { type: 'ai_chunk', agent: 'fixture', text: `from ${taskId}` });
    await rt.startTask('running');
    say('running');
    const ids = Array.from({ length: ENDED_REPLAYS_KEPT + 5 }, (_, i) => `ended-${i}`);
    for (const id of ids) {
      await rt.startTask(id);
      say(id);
      await rt.endTask(id);
    }
    const held = (id: string): boolean => rt.dispatcher.replay(id).some((e) => e.type === 'ai_chunk');
    expect(ids.filter(held)).toEqual(ids.slice(-ENDED_REPLAYS_KEPT));
    expect(held('running')).toBe(true);
    // a forgotten task's seq counter stays: its id never counts from 1 again
    expect(rt.dispatcher.lastSeq(ids[0]!)).toBeGreaterThan(0);
  });
});
