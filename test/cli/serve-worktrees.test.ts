// Issue 26: while two Coding delegations run side by side, each in its own git worktree, the TUI tree (Ctrl-T) and
// `attach ps` show which worktree each uses; after the task the worktrees are gone and both changes landed.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../bin/attach/client.js';
import type { TuiApp } from '../../bin/tui/app.js';
import { DiscoverySchema } from '../../bin/server/discovery.js';
import { attachedTui } from './attached-tui.js';
import { childReaper, discovered, GOOD_CONFIG, project, runCli, sandbox, start, until, SERVE_WAIT_MS, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
const apps: TuiApp[] = [];
const children = childReaper();
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
  children.reap();
  sb?.cleanup();
});

/** Two Coding runs at once: each writes its file, says it is there (`asked-<who>`), and exits once `release` exists. */
const script = (dir: string): string => `${PRELUDE}
import { existsSync, writeFileSync } from 'node:fs';
const wait = async (p) => { while (!existsSync(p)) await new Promise((r) => setTimeout(r, 20)); };
const both = { text: '', finishReason: 'tool_calls', toolCalls: [
  { name: 'delegate_coding', arguments: JSON.stringify({ task: 'WRITER-A', context_refs: [] }) },
  { name: 'delegate_coding', arguments: JSON.stringify({ task: 'WRITER-B', context_refs: [] }) },
] };
const coding = async (req) => {
  const who = firstUser(req).includes('WRITER-A') ? 'a' : 'b';
  const done = (req.body.messages || []).filter((m) => m.role === 'tool').length;
  if (done === 0) return call('create_file', { path: who + '.txt', content: 'by ' + who + '\\n' });
  if (done === 1) {
    writeFileSync(${JSON.stringify(dir)} + '/asked-' + who, 'x');
    await wait(${JSON.stringify(join(dir, 'release'))});
    return call('agent_exit', { conclusion: 'wrote ' + who, facts: [], artifacts: [], status: 'ok' });
  }
  return say('done');
};
export default { director: [both, ...times(5, say('finished'))], coding: times(12, coding) };
`;

describe('parallel writers in the tree', () => {
  it('the TUI tree and attach ps name each writer\'s worktree while it runs; none is left after', { timeout: 120_000 }, async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    const ws = project(s, { 'keep.txt': 'kept\n' });
    const git = (...a: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: s.dir } });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'start');
    children.push(start(['serve', '-y'], withScript(s, script(s.dir))));
    await discovered(s);
    const runDir = join(s.home, 'run');
    const file = readdirSync(runDir).find((n) => n.startsWith('supervisor-')) ?? '';
    const client = new ControlClient(DiscoverySchema.parse(JSON.parse(readFileSync(join(runDir, file), 'utf8'))));
    const { step } = attachedTui(apps, client, ws, { yolo: true, cols: 120, rows: 30 });
    await step('write both\r', () => true);
    await until(() => (existsSync(join(s.dir, 'asked-a')) && existsSync(join(s.dir, 'asked-b')) ? true : undefined), 'both Coding runs at work', SERVE_WAIT_MS);

    const ps = await runCli(['attach', 'ps'], s.env);
    const rows = ps.stdout.split('\n').filter((l) => /delegation:\S+:coding/.test(l));
    expect(rows, ps.stdout).toHaveLength(2);
    for (const r of rows) expect(r).toMatch(/worktree=yagent\/writer-\S+/);
    const branches = rows.map((r) => /worktree=(\S+)/.exec(r)?.[1]);
    expect(new Set(branches).size).toBe(2);
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(3);

    const screen = await step('\x14', (x) => (x.match(/coding running ⎇ yagent\/writer-/g) ?? []).length === 2);
    for (const b of branches) expect(screen).toContain(`⎇ ${b}`);
    await step('\x1b', (x) => !x.includes('delegation tree'));

    writeFileSync(join(s.dir, 'release'), 'go');
    await step('', (x) => x.includes('finished') && x.includes('done ('));
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('by a\n');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('by b\n');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git('branch', '--list', 'yagent/*')).toBe('');
  });
});
