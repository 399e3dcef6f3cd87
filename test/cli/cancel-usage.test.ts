// A cancelled turn keeps the tokens it spent: Ctrl-C while a delegation's model call is in flight, through the real
// CLI on the scripted model; every output format and the session ledger show the calls the fake model answered.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema, StreamLineSchema } from '../../bin/cli/stream-json.js';
import { collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type CliResult, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

/** Director (1 answered call, 1000/10) → Coding (1 answered call, 200/20), whose second call stalls after writing
 *  `marker`: only a cancel ends the run, and exactly those two calls were answered (and billed). */
function stallingDelegation(marker: string): string {
  return `${PRELUDE}
import { writeFileSync } from 'node:fs';
const u = (input, output) => ({ usage: { input, output } });
const stall = () => (writeFileSync(${JSON.stringify(marker)}, 'in flight'), { text: 'x', fault: { kind: 'stall', afterEvents: 1 } });
export default {
  director: [{ ...call('delegate_coding', { task: 'list the files', context_refs: [] }), ...u(1000, 10) }, ...times(4, say('never reached'))],
  coding: [{ ...call('list_dir', { path: '.' }), ...u(200, 20) }, stall, ...times(4, stall)],
};
`;
}

/** Runs `args` and sends one SIGINT once Coding's second model call is in flight. */
async function cancelMidDelegation(s: Sandbox, args: string[]): Promise<CliResult> {
  const marker = join(s.dir, 'stalled');
  const child = start(args, withScript(s, stallingDelegation(marker)), { cwd: project(s) });
  const done = collect(child);
  await until(() => (existsSync(marker) ? true : undefined), 'the stalled coding call');
  child.kill('SIGINT');
  return done;
}

const SPENT = { input_tokens: 1200, output_tokens: 30, cached_input_tokens: 0, reasoning_tokens: 0 };

describe('a cancelled turn keeps its usage', () => {
  it('json: usage and usage_by_agent count the calls the model answered before Ctrl-C', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await cancelMidDelegation(sb, ['-p', 'list the files', '--output-format', 'json']);
    expect(r.code).toBe(130);
    const obj = ResultObjectSchema.parse(JSON.parse(r.stdout));
    expect(obj.stop_reason).toBe('cancelled');
    expect(obj.usage).toEqual(SPENT);
    const by = Object.fromEntries(obj.usage_by_agent.map((e) => [e.agent, [e.calls, e.input_tokens, e.output_tokens]]));
    expect(by).toEqual({ director: [1, 1000, 10], coding: [1, 200, 20] });
  });

  it('text: the footer shows the spent tokens, and `yagent sessions` lists the turn as cancelled with them', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await cancelMidDelegation(sb, ['-p', 'list the files']);
    expect(r.code).toBe(130);
    expect(r.stderr.split('\n').find((l) => l.startsWith('usage: '))).toMatch(/^usage: 1\.2k in \/ 30 out · 2 calls/);
    const listed = await runCli(['sessions'], sb.env, { cwd: project(sb) });
    expect(listed.code).toBe(0);
    const row = listed.stdout.trim().split('\n')[1]?.split(/\s{2,}/) ?? [];
    expect(row.slice(2, 5)).toEqual(['1', 'cancelled', '1230']);
  });

  it('stream-json: the result line carries the same usage', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await cancelMidDelegation(sb, ['-p', 'list the files', '--output-format', 'stream-json']);
    expect(r.code).toBe(130);
    const last = StreamLineSchema.parse(JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}'));
    expect(last).toMatchObject({ type: 'result', data: { stop_reason: 'cancelled', usage: SPENT } });
  });
});
