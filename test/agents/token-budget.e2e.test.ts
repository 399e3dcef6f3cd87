// Production path of token counting: agent workers count on the process's CPU pool (js-tiktoken, the model's
// encoding), and the 500-token artifact budget decides on that count, not on chars/4.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import { loadConfig } from '../../src/runtime/config/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../../src/actors/llm/fake/script.js';
import { inPlaceBackend, TokenCounter, toolText } from '../../src/actors/llm/tokens.js';
import type { ChatMessage } from '../../src/runtime/protocol/index.js';
import { runTask, type RunTaskOptions } from '../../src/actors/agents/run-task.js';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';

const THOUGHT = '<thought>\ngoal: g\nstep: s\nreason: r\nplan:\n[>] s\n</thought>';
const call = (id: string, name: string, args: Record<string, unknown>): FakeReply => ({ text: THOUGHT, toolCalls: [{ id, name, arguments: JSON.stringify(args) }] });
const lastToolText = (req: RecordedRequest | undefined): string => {
  const msgs = (req?.body.messages ?? []) as { role: string; content: unknown }[];
  const t = msgs.filter((m) => m.role === 'tool').at(-1);
  return typeof t?.content === 'string' ? t.content : JSON.stringify(t?.content ?? '');
};
/** 1990 chars: chars/4 = 498 (under the budget), cl100k_base = 1011 tokens (over it). */
const DIGITS = Array.from({ length: 400 }, (_, i) => String((i * 7919) % 100000)).join(',').slice(0, 1990);

const root = mkdtempSync(join(tmpdir(), 'yagent-tokens-'));
let fake: FakeProvider;
let rt: Runtime;
let base: Omit<RunTaskOptions, 'prompt'>;
let claude: Omit<RunTaskOptions, 'prompt'>;
const CLAUDE = 'claude-sonnet-4-5';

/** cl100k_base count of an Anthropic Messages request as sent: system, each text block, each tool definition. */
async function wireEstimate(req: RecordedRequest): Promise<number> {
  const counter = new TokenCounter(inPlaceBackend);
  const b = req.body as { system?: string; messages: { role: string; content: { type: string; text?: string }[] }[]; tools?: { name: string; description: string; input_schema: Record<string, unknown> }[] };
  const msgs: ChatMessage[] = b.system !== undefined ? [{ role: 'system', content: b.system }] : [];
  for (const m of b.messages) for (const c of m.content) if (m.role === 'user' && c.type === 'text') msgs.push({ role: 'user', content: c.text ?? '' });
  expect(msgs.length).toBe(b.messages.reduce((n, m) => n + m.content.length, b.system !== undefined ? 1 : 0)); // a first request: texts only
  let n = await counter.countMessageTokens(msgs, 'gpt-4');
  for (const t of b.tools ?? []) n += await counter.countText(toolText({ name: t.name, description: t.description, parameters: t.input_schema }), 'gpt-4');
  return n;
}

beforeAll(async () => {
  expect(existsSync(resolve('dist', AGENT_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
  fake = await FakeProvider.start();
  const home = join(root, 'home');
  const configPath = join(root, 'config.toml');
  writeFileSync(configPath, `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\nmodel = "fake-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n`);
  const { config } = await loadConfig({ configPath });
  rt = await Runtime.start({ hasResponder: true });
  await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: home, notesRoot: join(home, 'notes') } });
  base = { workspace: join(root, 'ws'), config, configPath };
  const claudePath = join(root, 'claude.toml');
  writeFileSync(claudePath, `[global.llm]\nuse_provider = "anthropic"\n[global.llm.providers.anthropic]\nmodel = "${CLAUDE}"\napi_format = "anthropic"\napi_base_url = "${fake.anthropicBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n`);
  claude = { workspace: base.workspace, config: (await loadConfig({ configPath: claudePath })).config, configPath: claudePath };
  mkdirSync(base.workspace, { recursive: true });
}, 60_000);

afterAll(async () => {
  await rt?.shutdown();
  await fake?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('token counting on the CPU pool (production path)', () => {
  it('a deliverable under the budget by chars/4 but over it in cl100k tokens spills to an artifact', async () => {
    expect(Math.ceil(DIGITS.length / 4)).toBeLessThanOrEqual(500);
    fake.script('director', call('d1', 'delegate_repo', { task: 'list the numbers', context_refs: [] }), { text: 'done' });
    fake.script('repo', call('r1', 'agent_exit', { conclusion: DIGITS, status: 'ok', facts: [], artifacts: [] }));
    const r = await runTask(rt, { ...base, prompt: 'numbers', taskId: 'tokens-budget' });
    expect(r.text).toBe('done');
    const seen = lastToolText(fake.requests.filter((q) => q.agent === 'director').at(-1));
    expect(seen).toMatch(/full deliverable: 1011 tokens in artifact \S+; read it with read_artifact/);
  }, 60_000);

  it('Claude: a later count is the cl100k estimate scaled by reported ÷ estimated input of the latest call', async () => {
    // the Director's first call reports 3× what cl100k counts for the prompt it was sent (system, texts, tools)
    const step1 = async (req: RecordedRequest): Promise<FakeReply> => ({ ...call('c1', 'delegate_repo', { task: 'list the numbers', context_refs: [] }), usage: { input: 3 * (await wireEstimate(req)) } });
    fake.script('director', step1, { text: 'done' });
    fake.script('repo', call('c2', 'agent_exit', { conclusion: DIGITS, status: 'ok', facts: [], artifacts: [] }));
    const before = fake.requests.length;
    const r = await runTask(rt, { ...claude, prompt: 'numbers', taskId: 'tokens-claude' });
    expect(r.text).toBe('done');
    const director = fake.requests.slice(before).filter((q) => q.agent === 'director');
    expect(director.map((q) => q.format)).toEqual(['anthropic', 'anthropic']);
    // the parent counts the deliverable with its own counter: 1011 cl100k tokens × 3
    const blocks = ((director.at(-1)?.body.messages ?? []) as { content: { type: string; content?: string }[] }[]).flatMap((m) => m.content);
    expect(blocks.filter((c) => c.type === 'tool_result').at(-1)?.content).toMatch(/full deliverable: 3033 tokens in artifact \S+; read it with read_artifact/);
  }, 60_000);

  it('the CPU service runs only *-job.js modules (zod-free boundary check), and counts on the pool', async () => {
    await expect(rt.cpu.run({ module: 'src/store/service.js', name: 'count' }, {})).rejects.toMatchObject({ code: 'BAD_JOB' });
    await expect(rt.cpu.run({ module: '../../etc/passwd-job.js', name: 'count' }, {})).rejects.toMatchObject({ code: 'BAD_JOB' });
    const job = { module: 'src/actors/llm/token-job.js', name: 'count' };
    expect(await rt.cpu.run(job, { encoding: 'o200k_base', texts: ['é漢字ü'.repeat(250), ''] })).toEqual([1000, 0]);
  }, 60_000);
});
