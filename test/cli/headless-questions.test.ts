// Issue 23 item 7 through the real CLI: headless, a question is answered "nobody can answer, decide" and is no
// approval (exit 0 when the run then finishes); exit 3 stays for a needed approval; an error is 1 whatever came before.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { PRELUDE, writingOutside } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

const ASK = `call('ask_user_for_help', { question: 'Which file should I read?' })`;
/** The Director asks, writes what the tool told it to `seen`, then goes on with `rest`. */
const asking = (seen: string, rest: string): string => `${PRELUDE}
import { writeFileSync } from 'node:fs';
export default (fake) => {
  fake.script('director', ${ASK}, (req) => { writeFileSync(${JSON.stringify(seen)}, lastTool(req)); return ${rest}; }, ...times(20, ${rest}));
};
`;

describe('headless -p: a question is not an approval', () => {
  it('the model is told nobody can answer and to decide; the run finishes: exit 0, no needs_approval', async () => {
    sb = sandbox(GOOD_CONFIG);
    const seen = join(sb.dir, 'seen.txt');
    const r = await runCli(['-p', 'help me', '--output-format', 'json'], withScript(sb, asking(seen, `say('I chose README.md myself.')`)), { cwd: project(sb) });
    expect(r.code).toBe(0);
    const obj = JSON.parse(r.stdout) as { exit_code: number; needs_approval: unknown[]; result: string };
    expect(obj).toMatchObject({ exit_code: 0, needs_approval: [], result: 'I chose README.md myself.' });
    const told = readFileSync(seen, 'utf8');
    expect(told).toMatch(/nobody can answer/i);
    expect(told).toMatch(/decide yourself/i);
    // no advice to re-run with -y: there was nothing to approve
    expect(told).not.toMatch(/-y/);
    expect(r.stderr).not.toMatch(/cannot ask.*re-run with -y/);
  });

  it('a question, then a failing model: exit 1, not 3', async () => {
    sb = sandbox(GOOD_CONFIG);
    const seen = join(sb.dir, 'seen.txt');
    const r = await runCli(['-p', 'help me', '--output-format', 'json'], withScript(sb, asking(seen, `({ fault: { kind: 'status', status: 500, message: 'scripted outage' } })`)), { cwd: project(sb) });
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { exit_code: number }).exit_code).toBe(1);
  });
});

describe('exit 3 only for an approval; an error is 1 whatever came before', () => {
  it('an approval nobody could give, then a failing model: exit 1', async () => {
    sb = sandbox(GOOD_CONFIG);
    const target = join(sb.dir, 'outside.txt');
    const denied = writingOutside(target).replace("...times(6, say('Coding finished.'))", "...times(20, { fault: { kind: 'status', status: 500, message: 'scripted outage' } })");
    const r = await runCli(['-p', 'write it', '--output-format', 'json'], withScript(sb, denied), { cwd: project(sb) });
    expect(JSON.parse(r.stdout)).toMatchObject({ exit_code: 1 });
    expect(JSON.parse(r.stdout).needs_approval.length).toBeGreaterThan(0);
    expect(r.code).toBe(1);
  });

  it('batch: a task whose model asked a question and then finished is ok, not needs_approval', async () => {
    sb = sandbox(GOOD_CONFIG);
    const tasks = join(sb.dir, 'tasks.jsonl');
    const out = join(sb.dir, 'results.jsonl');
    writeFileSync(tasks, '{"id":"q","prompt":"help me"}\n');
    const r = await runCli(['batch', tasks, '--out', out], withScript(sb, asking(join(sb.dir, 'seen.txt'), `say('decided myself')`)), { cwd: project(sb) });
    expect(JSON.parse(readFileSync(out, 'utf8').trim())).toMatchObject({ id: 'q', status: 'ok' });
    expect(r.code).toBe(0);
  });
});
