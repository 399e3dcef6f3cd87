// Model failures through the real CLI: every retry is visible (text: a line on stderr; stream-json: llm_retry),
// call events reach stream-json, and a dead local server ends in three actionable lines, fast.
import { afterEach, describe, expect, it } from 'vitest';
import { StreamLineSchema } from '../../bin/cli/stream-json.js';
import { closedPort } from '../llm/helpers.js';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { FAILING } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

/** The Director's first request is rate limited (Retry-After 0), the retry answers. */
const RATE_LIMITED_ONCE = `
const say = (text) => ({ text, finishReason: 'stop' });
export default { director: [{ fault: { kind: 'status', status: 429, retryAfter: 0, message: 'slow down' } }, ...Array.from({ length: 6 }, () => say('recovered'))] };
`;
const RETRYING_CONFIG = `${GOOD_CONFIG}\n[llm]\nmax_retries = 2\n`;

describe('model failures in the CLI', () => {
  it('text: each retry is one line on stderr and the answer still arrives', async () => {
    sb = sandbox(RETRYING_CONFIG);
    const r = await runCli(['-p', 'hi'], withScript(sb, RATE_LIMITED_ONCE), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('recovered');
    const retries = r.stderr.split('\n').filter((l) => l.includes('retry in'));
    expect(retries).toHaveLength(1);
    // one numbering for the step: max_retries = 2 and step_retries = 2 (the default) make 9 attempts in all
    expect(retries[0]).toMatch(/director · scripted: step 1, attempt 1\/9 failed, retry in 0 ms: .*slow down/);
  });

  it('stream-json: llm_retry, llm_call_start/llm_call_end and model_info are lines of the stream', async () => {
    sb = sandbox(RETRYING_CONFIG);
    const r = await runCli(['-p', 'hi', '--output-format', 'stream-json'], withScript(sb, RATE_LIMITED_ONCE), { cwd: project(sb) });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => StreamLineSchema.parse(JSON.parse(l)));
    const of = (type: string) => lines.filter((l) => l.type === type);
    expect(of('llm_retry')).toHaveLength(1);
    expect(of('llm_retry')[0]?.data).toMatchObject({ agent: 'director', provider: 'scripted', step: 1, attempt: 2, maxAttempts: 9, waitMs: 0 });
    expect(of('model_info')[0]?.data).toMatchObject({ agent: 'director', provider: 'scripted', model: 'scripted-model' });
    expect(of('llm_call_start').length).toBeGreaterThan(0);
    const end = of('llm_call_end')[0]?.data;
    expect(end).toMatchObject({ agent: 'director', provider: 'scripted', retries: 1 });
    expect((end?.['usage'] as { inputTokens: number }).inputTokens).toBeGreaterThan(0);
  });

  it('a failing server: the retry lines count the step’s attempts as one sequence and say when the whole step is retried', async () => {
    sb = sandbox(`${GOOD_CONFIG}\n[llm]\nmax_retries = 1\nstep_retries = 1\n`);
    const r = await runCli(['-p', 'hi'], withScript(sb, FAILING), { cwd: project(sb) });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.includes(' failed, '));
    expect(lines.map((l) => /step (\d+), attempt (\d+)\/(\d+) failed, (retry|step retried) in/.exec(l)?.slice(1).join(' '))).toEqual(['1 1 4 retry', '1 2 4 step retried', '1 3 4 retry']);
    expect(r.stderr).toContain('error: model call failed: provider "scripted"');
  });

  it('a local server that is not running: 2 attempts, then three lines naming provider, URL and errno (exit 1)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    sb = sandbox(GOOD_CONFIG.replace('http://127.0.0.1:9/v1', url));
    const r = await runCli(['-p', 'hi'], sb.env, { cwd: project(sb) });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.includes('retry in'))).toHaveLength(1);
    const at = r.stderr.split('\n').findIndex((l) => l.startsWith('error: model call failed'));
    expect(at).toBeGreaterThanOrEqual(0);
    const three = r.stderr.split('\n').slice(at, at + 3);
    expect(three[0]).toContain('provider "p"');
    expect(three[0]).toContain('2 attempts');
    expect(three[1]).toBe(`  url: ${url} · last: errno ECONNREFUSED`);
    expect(three[2]).toMatch(/fix: check the server is running .*yagent setup/);
  });
});
