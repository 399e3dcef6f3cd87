// Delegation timeouts and the Director's circuit breaker: active time only (frozen while paused), from settings.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { PauseController } from '../../src/runtime/pause.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { makeHarness, ScriptedModel, exitCall, THOUGHT, toolMessages, type Reply } from './harness.js';

const delegate = (agent: string, task: string): Reply => ({ text: THOUGHT, calls: [{ name: `delegate_${agent}`, args: { task } }] });
const read: Reply = { text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] };

describe('delegation timeouts and breaker', () => {
  it('the delegation idle timeout is frozen while the task is paused', async () => {
    const clock = new ManualClock();
    const h = makeHarness({ delegateIdleMs: 100 });
    const model = new ScriptedModel({
      director: [delegate('repo', 'read it'), { text: 'done' }],
      // the task is paused for 4× the idle timeout between the child's steps (the manual clock runs every timer due)
      repo: [
        () => {
          h.pause.pause();
          clock.advance(400);
          h.pause.resume();
          return read;
        },
        exitCall('read after the pause'),
      ],
    });
    const out = await h.run(model, 'go', { clock });
    expect(out.text).toBe('done');
    const [note] = await h.store.listNotes(h.settings.boardId);
    expect(note.handoff.status).toBe('ok');
    expect(toolMessages(model.byAgent('director')[1]).at(-1)).toContain('read after the pause');
  });

  it('a sub-agent waiting for the user\'s approval is not idle: its idle timeout does not fire while the dialog is open', async () => {
    const clock = new ManualClock();
    const h = makeHarness({ delegateIdleMs: 100 });
    const outside = join(h.root, 'outside', 'a.txt');
    const asked: string[] = [];
    // the user takes 10× the idle timeout to answer (the manual clock runs every timer due meanwhile)
    const authorizer: Authorizer = (req) => {
      asked.push(req.tool);
      clock.advance(1000);
      return Promise.resolve({ decision: 'approved', scope: 'once' });
    };
    const model = new ScriptedModel({
      director: [delegate('coding', 'write it'), { text: 'done' }],
      coding: [{ text: THOUGHT, calls: [{ name: 'create_file', args: { path: outside, content: 'x\n' } }] }, exitCall('wrote it')],
    });
    const out = await h.run(model, 'go', { clock, authorizer });
    expect(asked).toEqual(['create_file']);
    expect(out.text).toBe('done');
    expect(toolMessages(model.byAgent('director')[1]).at(-1)).toContain('wrote it');
    expect(existsSync(outside)).toBe(true);
  });

  it('the parent\'s backstop past the total timeout counts active time only, like the child\'s clock', async () => {
    const clock = new ManualClock();
    const h = makeHarness({ delegateTotalMs: 150 });
    const model = new ScriptedModel({
      director: [delegate('repo', 'read it'), { text: 'done' }],
      repo: [
        () => {
          h.pause.pause();
          clock.advance(400);
          h.pause.resume();
          return read;
        },
        exitCall('survived the pause'),
      ],
    });
    await h.run(model, 'go', { backstopGraceMs: 50, clock });
    expect(toolMessages(model.byAgent('director')[1]).at(-1)).toContain('survived the pause');
  });

  it("a delegation paused on its own (attach pause TASK CALL_ID) does not trip the parent's backstop either", async () => {
    const clock = new ManualClock();
    const h = makeHarness({ delegateTotalMs: 150 });
    const child = new PauseController(); // the child's worker gate; the task itself is never paused
    const named: string[] = [];
    const model = new ScriptedModel({
      director: [delegate('repo', 'read it'), { text: 'done' }],
      repo: [
        () => {
          child.pause();
          clock.advance(400);
          child.resume();
          return read;
        },
        exitCall('survived its own pause'),
      ],
    });
    await h.run(model, 'go', {
      backstopGraceMs: 50,
      clock,
      childPause: (name) => (named.push(name), child),
      spawn: (_name, input, _id, signal) => runAgent(h.env(model, { signal, pause: child, clock }), input),
    });
    expect(named).toEqual([expect.stringMatching(/^delegation:.+:repo$/)]);
    expect(toolMessages(model.byAgent('director')[1]).at(-1)).toContain('survived its own pause');
  });

  it('a sub-agent past its total timeout stops with total_timeout: an error note, an error result', async () => {
    const clock = new ManualClock();
    const h = makeHarness({ delegateTotalMs: 60 });
    // the child's call hangs; once it is waiting, its clock passes the total timeout
    const stallPastTimeout = (): Reply => (setImmediate(() => clock.advance(61)), { stall: true });
    const model = new ScriptedModel({ director: [delegate('repo', 'slow'), { text: 'reported' }], repo: [stallPastTimeout] });
    const out = await h.run(model, 'go', { clock });
    expect(out.text).toBe('reported');
    const result = toolMessages(model.byAgent('director')[1]).at(-1) ?? '';
    expect(result).toContain('delegation_failed');
    expect(result).toContain('total_timeout');
    expect((await h.store.listNotes(h.settings.boardId))[0].handoff.status).toBe('error');
  });

  it('the Director\'s breaker opens after 3 failed delegations in a row: the 4th is refused without a child', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [delegate('repo', 'a'), delegate('repo', 'b'), delegate('repo', 'c'), delegate('repo', 'd'), { text: 'gave up' }],
      repo: [exitCall('no', 'error'), exitCall('no', 'error'), exitCall('no', 'error'), exitCall('never')],
    });
    const out = await h.run(model, 'go');
    expect(out.text).toBe('gave up');
    expect(model.byAgent('repo')).toHaveLength(3);
    expect(toolMessages(model.byAgent('director')[4]).at(-1)).toContain('circuit_open');
  });
});
