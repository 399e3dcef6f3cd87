// Log files through the real CLI: one file per kind and day under the data root, written by the store, and no
// configured key, env secret or bearer token anywhere under the data root (rollouts and notes included).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../llm/helpers.js';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

const KEY = 'sk-config-key-5f3a9c0e7b21';
const ENV_KEY = 'sk-env-key-8d1e4b6a2c90';
const OTHER_SECRET = 'ghp_other-secret-value-77';

const CONFIG = `[global.llm]
use_provider = "p"
[global.llm.providers.p]
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key = "${KEY}"
[global.llm.providers.q]
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key_env = "MY_PROVIDER_KEY"
`;

/** The model repeats every secret it was shown: in a delegation brief, a note, a tool call and its answer. */
const LEAKY = `
const THOUGHT = '<thought>\\ngoal: g\\nstep: s\\nreason: r\\nplan:\\n[>] s\\n</thought>';
const call = (name, args) => ({ text: THOUGHT, toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const secrets = ${JSON.stringify([KEY, ENV_KEY, OTHER_SECRET])}.join(' ');
export default {
  director: [call('delegate_repo', { task: 'check these keys: ' + secrets + ' (Authorization: Bearer tok_bearer_123456)', context_refs: [] }), { text: 'the keys are ' + secrets }, { text: 'done' }],
  repo: [call('read_file', { path: 'k-' + secrets + '.txt' }), call('agent_exit', { conclusion: 'saw ' + secrets, facts: [secrets], artifacts: [], status: 'ok' }), { text: 'done' }],
};
`;

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('log files', () => {
  it('a run with known keys: app/llm/tool/delegate logs exist (0600 in 0700) and no key appears in any file under the data root', async () => {
    sb = sandbox();
    const cfg = join(sb.dir, 'outside.toml'); // the user's config is the one file that holds the key, outside the data root
    writeFileSync(cfg, CONFIG);
    const ws = project(sb, {});
    const env = { ...withScript(sb, LEAKY), MY_PROVIDER_KEY: ENV_KEY, DEPLOY_SECRET: OTHER_SECRET };
    const r = await runCli(['-c', cfg, '-p', `use the key ${KEY} please`, '-y', '--output-format', 'json'], env, { cwd: ws });
    expect(r.code).toBe(0);
    const logs = join(sb.home, 'logs');
    const names = readdirSync(logs);
    for (const kind of ['app', 'llm', 'tool', 'delegate']) expect(names.some((n) => new RegExp(`^${kind}-\\d{4}-\\d{2}-\\d{2}\\.jsonl$`).test(n))).toBe(true);
    expect(statSync(logs).mode & 0o777).toBe(0o700);
    for (const n of names) expect(statSync(join(logs, n)).mode & 0o777).toBe(0o600);
    const files = filesUnder(sb.home);
    expect(files.some((f) => f.includes(`${join('data', 'rollout')}`))).toBe(true);
    expect(files.some((f) => f.startsWith(join(sb?.home ?? '', 'notes')))).toBe(true);
    const leaks = files.filter((f) => [KEY, ENV_KEY, OTHER_SECRET, 'tok_bearer_123456'].some((s) => readFileSync(f, 'utf8').includes(s)));
    expect(leaks).toEqual([]);
    // the secrets did flow into these files (the test can fail): they arrive redacted
    expect(files.filter((f) => readFileSync(f, 'utf8').includes('[REDACTED]')).length).toBeGreaterThan(2);
    const delegate = readFileSync(join(logs, names.find((n) => n.startsWith('delegate-')) ?? ''), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string });
    expect(delegate.map((l) => l.event)).toEqual(['delegation_start', 'delegation_end']);
  }, 60_000);

  it('a swallowed failure is a warn line in the app log and, with -v, on stderr', async () => {
    sb = sandbox();
    writeFileSync(join(sb.dir, 'c.toml'), CONFIG);
    mkdirSync(join(sb.home, 'data'), { recursive: true });
    writeFileSync(join(sb.home, 'data', 'timeline'), 'a file where the timeline directory belongs');
    const env = { ...withScript(sb, LEAKY), MY_PROVIDER_KEY: ENV_KEY };
    const r = await runCli(['-c', join(sb.dir, 'c.toml'), '-v', '-p', 'look', '-y'], env, { cwd: sb.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/yagent: warn: .*timeline entry \(repo start\) not recorded/);
    const app = readdirSync(join(sb.home, 'logs')).find((n) => n.startsWith('app-')) ?? '';
    const lines = readFileSync(join(sb.home, 'logs', app), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { level: string; event: string; data: { source?: string } });
    expect(lines.filter((l) => l.event === 'log' && l.level === 'warn').map((l) => l.data.source)).toContain('recordTimeline');
  }, 60_000);

  interface ErrLine { level: string; event: string; msg: string; agent?: string; data: Record<string, unknown> }
  /** The one failure file of the day: every line parsed; no other llm-error file exists. */
  function errorLines(home: string): ErrLine[] {
    const logs = join(home, 'logs');
    const names = readdirSync(logs).filter((n) => n.startsWith('llm-error-'));
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^llm-error-\d{4}-\d{2}-\d{2}\.jsonl$/);
    expect(statSync(join(logs, names[0] ?? '')).mode & 0o777).toBe(0o600);
    return readFileSync(join(logs, names[0] ?? ''), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ErrLine);
  }

  it('an unreachable provider: the retry and the final failure are in llm-error-DAY.jsonl with provider, model, URL, errno and attempt', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    sb = sandbox(GOOD_CONFIG.replace('http://127.0.0.1:9/v1', url).replace('api_key = "k"', `api_key = "${KEY}"`));
    const r = await runCli(['-p', 'hi'], sb.env, { cwd: project(sb) });
    expect(r.code).toBe(1);
    const lines = errorLines(sb.home);
    expect(lines.map((l) => [l.event, l.data.failedAttempt])).toEqual([['llm_retry', 1], ['llm_call_end', 2]]);
    for (const l of lines) expect(l.data).toMatchObject({ provider: 'p', model: 'm', url, errno: 'ECONNREFUSED', code: 'CONNECTION' });
    expect(lines[1]?.msg).toContain('model call failed: provider "p"');
    // the llm file still tells the whole call (start, retry, end); no key in either
    const llm = readdirSync(join(sb.home, 'logs')).find((n) => /^llm-\d/.test(n)) ?? '';
    const events = readFileSync(join(sb.home, 'logs', llm), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as ErrLine).event);
    expect(events.filter((e) => e.startsWith('llm_call') || e === 'llm_retry')).toEqual(['llm_call_start', 'llm_retry', 'llm_call_end']);
    expect(filesUnder(sb.home).filter((f) => readFileSync(f, 'utf8').includes(KEY))).toEqual([join(sb.home, 'config', 'config.toml')]);
  }, 60_000);

  it('HTTP failures: a retried 500 and the 401 that ends the call carry their status; a successful call writes nothing there', async () => {
    sb = sandbox(`${GOOD_CONFIG}\n[llm]\nmax_retries = 2\n`);
    const script = `export default { director: [{ fault: { kind: 'status', status: 500, message: 'boom' } }, { fault: { kind: 'status', status: 401, message: 'bad key' } }] };`;
    const r = await runCli(['-p', 'hi'], withScript(sb, script), { cwd: project(sb) });
    expect(r.code).toBe(1);
    const lines = errorLines(sb.home);
    // (the scripted provider's key is the word "scripted": the redactor hides its name too)
    expect(lines.map((l) => [l.event, l.level, l.agent, l.data.status, l.data.code, l.data.failedAttempt])).toEqual([
      ['llm_retry', 'warn', 'director', 500, 'SERVER_ERROR', 1],
      ['llm_call_end', 'error', 'director', 401, 'AUTH', 2],
    ]);
    expect(String(lines[0]?.data.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    sb.cleanup();
    sb = sandbox(GOOD_CONFIG);
    const ok = await runCli(['-p', 'hi'], withScript(sb, `export default { director: Array.from({ length: 4 }, () => ({ text: 'fine' })) };`), { cwd: project(sb) });
    expect(ok.code).toBe(0);
    expect(readdirSync(join(sb.home, 'logs')).filter((n) => n.startsWith('llm-error-'))).toEqual([]);
  }, 60_000);
});
