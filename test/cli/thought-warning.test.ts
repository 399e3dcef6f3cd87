// A model that never writes <thought> (issue 25 item 2): the event and the app-log line stay for every step, but
// stderr does not warn at every step: nothing without -v, one line at most with -v.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

// the Director (thought required) delegates without one; Coding (thought required) reads three times and exits, without one: five warnings
const NO_THOUGHT = `${PRELUDE}
export default {
  director: [call('delegate_coding', { task: 'read it', context_refs: [] }), say('Read it three times.')],
  coding: [...times(3, call('read_file', { path: 'package.json' })), call('agent_exit', { conclusion: 'read', facts: [], artifacts: [], status: 'ok' })],
};
`;

const thoughtLogLines = (home: string): number => {
  const app = readdirSync(join(home, 'logs')).find((n) => n.startsWith('app-')) ?? '';
  return readFileSync(join(home, 'logs', app), 'utf8').split('\n').filter((l) => l.includes('no valid <thought> block')).length;
};

describe('the <thought> warning', () => {
  it('without -v stderr says nothing of it; the app log keeps every step', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'read package.json'], withScript(sb, NO_THOUGHT), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('Read it three times.');
    expect(r.stderr).not.toMatch(/thought/i);
    expect(thoughtLogLines(sb.home)).toBe(5);
  }, 60_000);

  it('with -v it is one stderr line for the whole run', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-v', '-p', 'read package.json'], withScript(sb, NO_THOUGHT), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter((l) => /thought/i.test(l))).toHaveLength(1);
    expect(r.stderr).toContain('no valid <thought> block');
    expect(thoughtLogLines(sb.home)).toBe(5);
  }, 60_000);
});
