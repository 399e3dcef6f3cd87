// Project-level authorization grants live in settings.json through the store and outlive the run.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Authorizer } from '../../src/actors/tools/authorizer.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { settingsFrom } from '../../src/actors/agents/run-task.js';
import { projectIdFor } from '../../src/store/client.js';
import { makeHarness, ScriptedModel, exitCall, THOUGHT, type Harness } from './harness.js';

function codingRun(h: Harness, model: ScriptedModel, authorizer: Authorizer): ReturnType<typeof runAgent> {
  return runAgent(h.env(model, { authorizer }), { agent: 'coding', role: 'coding', brief: 'write it', settings: h.settings, delegationId: null, parentSessionId: null });
}

const writeOutside = (path: string, content: string): ScriptedModel =>
  new ScriptedModel({ coding: [{ text: THOUGHT, calls: [{ name: 'create_file', args: { path, content } }] }, exitCall('written')] });

describe('project grants (settings.json through the store)', () => {
  it('a project-level grant survives a new run: the second run is not asked again', async () => {
    const first = makeHarness();
    const outside = join(first.root, 'outside.txt');
    let asked = 0;
    const approveForProject: Authorizer = () => (asked++, Promise.resolve({ decision: 'approved', scope: 'project' }));
    expect((await codingRun(first, writeOutside(outside, 'one\n'), approveForProject)).stopReason).toBe('agent_exit');
    expect(readFileSync(outside, 'utf8')).toBe('one\n');
    expect(asked).toBe(1);

    const settings = JSON.parse(readFileSync(join(first.root, 'home', 'settings.json'), 'utf8')) as { authorized_projects: string[]; project_grants: Record<string, string[]> };
    const ws = realpathSync(first.workspace);
    expect(settings.authorized_projects).toContain(ws);
    expect(settings.project_grants[ws]).toEqual([`create_file:${realpathSync(first.root)}/outside.txt`]);

    rmSync(outside);
    // a new run: a fresh store over the same YAGENT_HOME, an authorizer that would refuse
    const second = makeHarness({}, { root: first.root });
    const refuse: Authorizer = () => (asked++, Promise.resolve({ decision: 'denied', reason: 'must not be asked' }));
    expect((await codingRun(second, writeOutside(outside, 'two\n'), refuse)).stopReason).toBe('agent_exit');
    expect(readFileSync(outside, 'utf8')).toBe('two\n');
    expect(asked).toBe(1);
  });

  it('a writer in its own worktree (userWorkspace set) keeps the user\'s project grants', async () => {
    const first = makeHarness();
    const outside = join(first.root, 'tree-outside.txt');
    await codingRun(first, writeOutside(outside, 'one\n'), () => Promise.resolve({ decision: 'approved', scope: 'project' }));
    rmSync(outside);
    const second = makeHarness({}, { root: first.root });
    const tree = join(first.root, 'a-worktree');
    mkdirSync(tree);
    const refuse: Authorizer = () => Promise.resolve({ decision: 'denied', reason: 'must not be asked' });
    const settings = { ...second.settings, workspace: tree, userWorkspace: second.settings.workspace };
    const out = await runAgent(second.env(writeOutside(outside, 'two\n'), { authorizer: refuse }), { agent: 'coding', role: 'coding', brief: 'write it', settings, delegationId: null, parentSessionId: null });
    expect(out.stopReason).toBe('agent_exit');
    expect(readFileSync(outside, 'utf8')).toBe('two\n');
  });

  it('a session-level grant does not outlive its run', async () => {
    const first = makeHarness();
    const outside = join(first.root, 'session.txt');
    await codingRun(first, writeOutside(outside, 'one\n'), () => Promise.resolve({ decision: 'approved', scope: 'session' }));
    expect(readFileSync(outside, 'utf8')).toBe('one\n');
    rmSync(outside);
    const second = makeHarness({}, { root: first.root });
    await codingRun(second, writeOutside(outside, 'two\n'), () => Promise.resolve({ decision: 'denied', reason: 'no' }));
    expect(existsSync(outside)).toBe(false);
  });

  it('a run is filed under the store\'s one project id', () => {
    const h = makeHarness();
    expect(settingsFrom({ prompt: '', workspace: h.workspace, config: h.config }, 't', 'b').projectId).toBe(projectIdFor(h.workspace));
  });
});
