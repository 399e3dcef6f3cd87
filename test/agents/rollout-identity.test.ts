// Production path: an agent run's rollout carries the workspace's git identity and each turn's cwd.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { exitCall, makeHarness, ScriptedModel, THOUGHT } from './harness.js';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();

describe('rollout identity through runAgent', () => {
  it('session_meta.git is the workspace repository and every turn_context carries the workspace as cwd', async () => {
    const h = makeHarness();
    git(h.workspace, 'init', '-q');
    git(h.workspace, 'add', '.');
    git(h.workspace, 'commit', '-q', '-m', 'init');
    const model = new ScriptedModel({ repo: [{ text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }, { text: THOUGHT, ...exitCall('done') }] });
    const out = await runAgent(h.env(model), { agent: 'repo', role: 'repo', brief: 'look', settings: h.settings, delegationId: 'call_1', parentSessionId: 'p' });
    await h.store.drain(out.rolloutPath);
    const recs = readFileSync(out.rolloutPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    expect(recs[0]).toMatchObject({ type: 'session_meta', payload: { cwd: h.workspace, git: { commit: git(h.workspace, 'rev-parse', 'HEAD'), branch: 'main', dirty: false } } });
    const turns = recs.filter((r) => r.type === 'turn_context');
    expect(turns.map((r) => r.payload.cwd)).toEqual([h.workspace, h.workspace]);
    await h.store.shutdown();
    rmSync(h.root, { recursive: true, force: true });
  });
});
