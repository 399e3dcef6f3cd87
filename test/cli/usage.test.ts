// Usage and estimated cost of a whole task through the real CLI on the scripted model: every agent's calls are
// counted (Director → Repo → DevOps, the nested one included), per agent, in text, json and stream-json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema, StreamLineSchema } from '../../bin/cli/stream-json.js';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

/** Director (2 calls × 1000/10) → Repo (2 calls × 200/20) → DevOps (1 call × 30/3), exact usage per reply. */
const NESTED = `
const u = (input, output) => ({ usage: { input, output } });
const call = (name, args, usage) => ({ toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls', ...usage });
const say = (text, usage) => ({ text, finishReason: 'stop', ...usage });
const exit = (conclusion, usage) => call('agent_exit', { conclusion, facts: [], artifacts: [], status: 'ok' }, usage);
export default {
  director: [call('delegate_repo', { task: 'find the name, ask devops about the env', context_refs: [] }, u(1000, 10)), say('All done.', u(1000, 10))],
  repo: [call('delegate_devops', { task: 'check the env', context_refs: [] }, u(200, 20)), exit('name is yagent-fixture', u(200, 20))],
  devops: [exit('env ok', u(30, 3))],
};
`;
const PRICED = `${GOOD_CONFIG}\n[llm.prices."scripted-model"]\ninput = 1\noutput = 10\n`;
const TOTAL = { input_tokens: 2430, output_tokens: 63, cached_input_tokens: 0, reasoning_tokens: 0 };

describe('usage and cost of a multi-agent task', () => {
  it('json: usage sums every agent (nested delegations included), per agent, with the estimated cost', async () => {
    sb = sandbox(PRICED);
    const r = await runCli(['-p', 'name and env?', '--output-format', 'json'], withScript(sb, NESTED), { cwd: project(sb) });
    expect(r.code).toBe(0);
    const obj = ResultObjectSchema.parse(JSON.parse(r.stdout));
    expect(obj.result).toBe('All done.');
    expect(obj.usage).toEqual(TOTAL);
    const by = Object.fromEntries(obj.usage_by_agent.map((e) => [e.agent, [e.calls, e.input_tokens, e.output_tokens]]));
    expect(by).toEqual({ director: [2, 2000, 20], repo: [2, 400, 40], devops: [1, 30, 3] });
    expect(obj.cost_usd).toBeCloseTo((2430 * 1 + 63 * 10) / 1e6, 9);
    expect(obj.unpriced_models).toEqual([]);
  });

  it('text: the footer shows the total with its cost and one line per agent', async () => {
    sb = sandbox(PRICED);
    const r = await runCli(['-p', 'name and env?'], withScript(sb, NESTED), { cwd: project(sb) });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.startsWith('usage: '));
    expect(lines[at]).toBe('usage: 2.4k in / 63 out · 5 calls · est. $0.0031');
    expect(lines.slice(at + 1, at + 4).map((l) => l.trim().split(/\s+/)[0])).toEqual(['director', 'repo', 'devops']);
    expect(lines[at + 3]).toContain('30 in / 3 out · 1 call · $0.0001 · scripted/scripted-model');
  });

  it('stream-json: the result line carries the same totals; a model without a price is named, not guessed', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'name and env?', '--output-format', 'stream-json'], withScript(sb, NESTED), { cwd: project(sb) });
    expect(r.code).toBe(0);
    const last = StreamLineSchema.parse(JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}'));
    expect(last.type).toBe('result');
    expect(last.data['usage']).toEqual(TOTAL);
    expect(last.data['cost_usd']).toBeNull(); // no price: unknown, never $0
    expect(last.data['unpriced_models']).toEqual(['scripted-model']);
  });

  it('batch: each result line carries the task-wide usage, usage_by_agent and cost_usd', async () => {
    sb = sandbox(PRICED);
    const ws = project(sb);
    const tasks = join(sb.dir, 'tasks.jsonl');
    const out = join(sb.dir, 'results.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 'one', prompt: 'name and env?', workspace: ws })}\n`);
    const r = await runCli(['batch', tasks, '--parallel', '1', '--out', out], withScript(sb, NESTED));
    expect(r.code).toBe(0);
    const line = JSON.parse(readFileSync(out, 'utf8').trim()) as { usage: Record<string, number>; usage_by_agent: { agent: string }[]; cost_usd: number };
    expect(line.usage).toEqual(TOTAL); // the same snake_case keys as -p json
    expect(line.usage_by_agent.map((e) => e.agent)).toEqual(['director', 'repo', 'devops']);
    expect(line.cost_usd).toBeCloseTo((2430 + 630) / 1e6, 9);
  });
});
