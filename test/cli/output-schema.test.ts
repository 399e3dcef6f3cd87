// One output schema in every client (issue 25 item 11): -p json and every batch result line parse with the same
// versioned schema (snake_case usage, session_id, duration_ms); a model without a price says "no price" (null, never
// $0); `yagent sessions` counts the calls of a turn killed with kill -9 from its rollouts.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema, STREAM_JSON_VERSION } from '../../bin/cli/stream-json.js';
import { BatchResultSchema } from '../../bin/cli/batch-file.js';
import { childReaper, collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
const reaper = childReaper();
afterEach(() => {
  reaper.reap();
  sb?.cleanup();
});

const ANSWER = `export default { director: Array.from({ length: 4 }, () => ({ text: 'Hi.', finishReason: 'stop', usage: { input: 120, output: 7 } })) };\n`;

describe('the result schema', () => {
  it('-p json and batch results are the same versioned object; no price is null and "no price", never $0', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const env = withScript(sb, ANSWER);
    const json = await runCli(['-p', 'hi', '--output-format', 'json'], env, { cwd: ws });
    expect(json.code).toBe(0);
    const one = ResultObjectSchema.parse(JSON.parse(json.stdout));
    expect(one).toMatchObject({ v: STREAM_JSON_VERSION, usage: { input_tokens: 120, output_tokens: 7, cached_input_tokens: 0, reasoning_tokens: 0 }, cost_usd: null, unpriced_models: ['scripted-model'] });
    expect(one.session_id).toMatch(/^task-/);
    expect(one.duration_ms).toBeGreaterThan(0);
    expect(json.stderr).toContain('no price for scripted-model');
    expect(json.stderr).not.toContain('$0');

    const file = join(sb.dir, 'tasks.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'a', prompt: 'hi', workspace: ws })}\n${JSON.stringify({ id: 'b', prompt: 'x', workspace: join(ws, 'missing') })}\n`);
    const batch = await runCli(['batch', file], env, { cwd: ws });
    expect(batch.code).toBe(1);
    const lines = readFileSync(join(sb.dir, 'tasks.results.jsonl'), 'utf8').trim().split('\n').map((l) => BatchResultSchema.parse(JSON.parse(l)));
    const a = lines.find((l) => l.id === 'a');
    expect(a).toMatchObject({ v: STREAM_JSON_VERSION, type: 'result', status: 'ok', result: 'Hi.', usage: one.usage, cost_usd: null, unpriced_models: ['scripted-model'] });
    expect(a?.session_id).toBe(a?.task_id);
    // the keys of -p json are exactly the keys of a batch line, less the batch's own
    const own = ['id', 'status', 'finished_at'];
    expect(Object.keys(a ?? {}).filter((k) => !own.includes(k)).sort()).toEqual(Object.keys(one).sort());
    expect(lines.find((l) => l.id === 'b')).toMatchObject({ status: 'error', session_id: null, usage: { input_tokens: 0, output_tokens: 0 } });
  }, 90_000);

  it('a priced model still gets a figure (and the text footer an estimate)', async () => {
    sb = sandbox(`${GOOD_CONFIG}\n[llm.prices."scripted-model"]\ninput = 1\noutput = 10\n`);
    const r = await runCli(['-p', 'hi', '--output-format', 'json'], withScript(sb, ANSWER), { cwd: project(sb) });
    const obj = ResultObjectSchema.parse(JSON.parse(r.stdout));
    expect(obj.cost_usd).toBeCloseTo((120 * 1 + 7 * 10) / 1e6, 9);
    expect(obj.unpriced_models).toEqual([]);
    expect(r.stderr).toMatch(/usage: .* · est\. \$0\.0002/);
  }, 60_000);
});

describe('yagent sessions after kill -9', () => {
  it('counts the tokens of a turn killed mid-run from the calls its rollouts recorded', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const stalled = join(sb.dir, 'stalled');
    // Director: 1 call (100/10) → Repo: 2 calls (200/20 each), then a third that never answers
    const env = withScript(sb, `
import { writeFileSync } from 'node:fs';
const u = (input, output) => ({ usage: { input, output } });
const call = (name, args, usage) => ({ toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls', ...usage });
export default {
  director: [call('delegate_repo', { task: 'read it twice', context_refs: [] }, u(100, 10))],
  repo: [call('read_file', { path: 'package.json' }, u(200, 20)), call('read_file', { path: 'package.json' }, u(200, 20)), () => { writeFileSync(${JSON.stringify(stalled)}, 'x'); return { fault: { kind: 'stall', afterEvents: 0 } }; }],
};
`);
    const child = start(['-p', 'read package.json twice'], env, { cwd: ws });
    reaper.push(child);
    const done = collect(child);
    await until(() => (existsSync(stalled) ? true : undefined), 'the third Repo call');
    // the three answered calls are in the rollouts (the store writes them as they happen) before the kill
    const rollouts = (): string => {
      const root = join(sb?.home ?? '', 'data', 'rollout');
      return readdirSync(root, { recursive: true }).map(String).filter((n) => n.endsWith('.jsonl')).map((n) => readFileSync(join(root, n), 'utf8')).join('');
    };
    await until(() => ((rollouts().match(/"kind":"llm_usage"/g) ?? []).length >= 3 ? true : undefined), 'three llm_usage records');
    child.kill('SIGKILL');
    await done;
    const r = await runCli(['sessions', '--json'], sb.env, { cwd: ws });
    const { sessions } = JSON.parse(r.stdout) as { sessions: { stopReason: string | null; tokens: { input: number; output: number } }[] };
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ stopReason: null, tokens: { input: 500, output: 50 } });
    const text = await runCli(['sessions'], sb.env, { cwd: ws });
    expect(text.stdout).toMatch(/interrupted\s+550\s/);
  }, 90_000);
});
