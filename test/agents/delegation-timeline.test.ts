// A delegation's timeline records are awaited, not detached: the end record lands before the parent sees the result.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../src/store/api.js';
import { exitCall, makeHarness, ScriptedModel, THOUGHT, toolMessages } from './harness.js';

describe('delegation timeline', () => {
  it('the end record is in the timeline before the parent sees the delegation result (success and failure)', async () => {
    const h = makeHarness();
    const recordTimeline = h.store.recordTimeline.bind(h.store);
    let ends = 0;
    // the real store, its end-record write made slow: a detached write would still be pending at the next step
    h.store.recordTimeline = async (taskId: string, entry: TimelineEntry): Promise<void> => {
      const isEnd = entry.type === 'delegation' && entry.phase === 'end';
      if (isEnd) await new Promise((r) => setTimeout(r, 50));
      await recordTimeline(taskId, entry);
      if (isEnd) ends++;
    };
    const endsSeenAtStep: number[] = [];
    const model = new ScriptedModel({
      director: [
        { text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'look' } }] },
        () => (endsSeenAtStep.push(ends), { text: THOUGHT, calls: [{ name: 'delegate_chat', args: { task: 'talk' } }] }),
        () => (endsSeenAtStep.push(ends), { text: 'done' }),
      ],
      repo: [exitCall('looked')],
      chat: [{ fail: 'model down' }, { fail: 'model down' }, { fail: 'model down' }, { fail: 'model down' }],
    });
    const out = await h.run(model, 'look, then talk');
    expect(out.stopReason).toBe('plain_text');
    expect(endsSeenAtStep).toEqual([1, 2]);
    expect(toolMessages(model.byAgent('director')[2]).at(-1)).toMatch(/chat/);
    const page = await h.store.timeline(h.settings.taskId);
    const phases = page.entries.flatMap((e) => (e.type === 'delegation' ? [`${e.agent}:${e.phase}`] : []));
    // the page lists newest first
    expect(phases.reverse()).toEqual(['repo:start', 'repo:end', 'chat:start', 'chat:end']);
  });

  it('the step after a delegation records its review with the thought\'s reason; steps with nothing to review record none', async () => {
    const h = makeHarness();
    const judged = '<thought>\ngoal: do the task\nstep: judge it\nreason: the repo answer is complete\nplan:\n[>] judge\n</thought>';
    const model = new ScriptedModel({
      director: [
        { text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'nothing.txt' } }] },
        { text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'look' } }] },
        { text: judged, calls: [{ name: 'read_file', args: { path: 'nothing.txt' } }] },
        { text: 'done' },
      ],
      repo: [exitCall('looked')],
    });
    const out = await h.run(model, 'look');
    expect(out.stopReason).toBe('plain_text');
    const page = await h.store.timeline(h.settings.taskId);
    const reviews = page.entries.flatMap((e) => (e.type === 'review' ? [{ agent: e.agent, verdict: e.verdict }] : []));
    expect(reviews).toEqual([{ agent: 'repo', verdict: 'the repo answer is complete' }]);
  });

  it('a timeline record that cannot be written is reported as a warning event, not swallowed', async () => {
    const h = makeHarness();
    mkdirSync(join(h.root, 'home', 'data'), { recursive: true });
    writeFileSync(join(h.root, 'home', 'data', 'timeline'), 'a file where the timeline directory should be\n');
    const model = new ScriptedModel({
      director: [{ text: THOUGHT, calls: [{ name: 'delegate_repo', args: { task: 'look' } }] }, { text: 'done' }],
      repo: [exitCall('looked')],
    });
    const out = await h.run(model, 'look');
    expect(out.stopReason).toBe('plain_text'); // the delegation itself still works
    const logged = h.events.flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
    expect(logged.filter((m) => /timeline entry .* not recorded/.test(m))).toHaveLength(2); // the start and the end record
  });
});
