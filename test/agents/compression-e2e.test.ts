// Context compression end to end: real workers, store actor, tools and rollout files; only the model is scripted.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import { loadConfig, type YagentConfig } from '../../src/runtime/config/index.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import type { StoreApi } from '../../src/store/api.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { estimateTokens, type FakeReply, type RecordedRequest } from '../../src/actors/llm/fake/script.js';
import { runTask } from '../../src/actors/agents/run-task.js';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';
import { pairsIntact } from '../../src/actors/agents/compression/turns.js';
import { SUMMARY_HEADER } from '../../src/actors/agents/compression/tier2-emergency.js';
import { REBUILD_HEADER } from '../../src/actors/agents/compression/tier3-ultimate.js';

const THOUGHT = (i: number): string => `<thought>\ngoal: read every file\nstep: read f${i}\nreason: the task asks for it\nplan:\n[>] read f${i}\n</thought>`;
let n = 0;
const call = (name: string, args: Record<string, unknown>, i = 0): FakeReply => ({ text: THOUGHT(i), toolCalls: [{ id: `k${++n}`, name, arguments: JSON.stringify(args) }] });
const exit = (conclusion: string): FakeReply => call('agent_exit', { conclusion, status: 'ok', facts: [], artifacts: [] });

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}
type Block = { type?: string; id?: string; tool_use_id?: string };
const wire = (r: RecordedRequest): WireMessage[] => (r.body.messages ?? []) as WireMessage[];
const bodyTokens = (r: RecordedRequest): number => estimateTokens(JSON.stringify(r.body.messages ?? ''));
const blocks = (m: WireMessage): Block[] => (Array.isArray(m.content) ? (m.content as Block[]) : []);
/** Every tool call in the request is answered by a result before anything else, and every result has its call
 *  (OpenAI: `tool_calls` then `tool` messages; Anthropic: `tool_use` blocks then the next user message's `tool_result`s). */
function wirePairsIntact(r: RecordedRequest): boolean {
  const open = new Set<string>();
  for (const m of wire(r)) {
    if (r.format === 'anthropic') {
      for (const b of blocks(m)) if (b.type === 'tool_result' && !open.delete(b.tool_use_id ?? '')) return false;
      if (open.size > 0) return false;
      for (const b of blocks(m)) if (b.type === 'tool_use') open.add(b.id ?? '');
      continue;
    }
    if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id ?? '')) return false;
      continue;
    }
    if (open.size > 0) return false;
    for (const c of m.tool_calls ?? []) open.add(c.id);
  }
  return open.size === 0;
}

const root = mkdtempSync(join(tmpdir(), 'yagent-compress-'));
const ws = join(root, 'ws');
let fake: FakeProvider;
let rt: Runtime;
const envelopes: Envelope[] = [];

async function configWith(name: string, extra: string, format: 'openai' | 'anthropic' = 'openai'): Promise<{ config: YagentConfig; configPath: string }> {
  const configPath = join(root, `${name}.toml`);
  const url = format === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl;
  writeFileSync(
    configPath,
    `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\napi_format = "${format}"\nmodel = "fake-model"\napi_base_url = "${url}"\napi_key = "k"\n[global.llm.providers.sum]\nmodel = "sum-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n[agent]\ndelegate_idle_timeout = "60s"\nrepo_max_steps = 80\n${extra}`,
  );
  return { config: (await loadConfig({ configPath })).config, configPath };
}

/** The repo child's rollout of one task (found by its session_meta). */
function repoRollout(directorRollout: string, taskId: string): string {
  const dir = dirname(directorRollout);
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('_repo.jsonl'))
    .find((f) => readFileSync(join(dir, f), 'utf8').includes(`"taskId":"${taskId}"`));
  return join(dir, file ?? 'missing');
}

beforeAll(async () => {
  expect(existsSync(resolve('dist', AGENT_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
  fake = await FakeProvider.start({ chunkDelayMs: 0 });
  const home = join(root, 'home');
  process.env.YAGENT_HOME = home;
  process.env.YAGENT_NOTES_ROOT = join(home, 'notes');
  mkdirSync(ws, { recursive: true });
  // 60 files of 4 KB, each different (a cache of one would hide a lost result)
  for (let i = 0; i < 60; i++) {
    const line = (l: number): string => `file ${i} line ${l}: ${'abcdefghij'.repeat(5)} ${(i * 1000 + l).toString(36)}`;
    writeFileSync(join(ws, `f${i}.txt`), Array.from({ length: 60 }, (_, l) => line(l)).join('\n').slice(0, 4096));
  }
  rt = await Runtime.start({ hasResponder: true });
  await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: home, notesRoot: join(home, 'notes') } });
  rt.dispatcher.consume({ name: 'compress-test' }, (env) => void envelopes.push(env));
}, 60_000);

afterAll(async () => {
  await rt?.shutdown();
  await fake?.close();
});

describe('context compression end to end', () => {
  it('60 reads of 4 KB under an 8000-token threshold finish; every request fits and keeps its pairs; replay rebuilds the compacted memory', async () => {
    const THRESHOLD = 8000;
    // the summary call goes to [tools.llm] compression's provider, not the agent's
    const cfg = await configWith('small', `[enhanced_commander]\ncontext_compression_threshold = ${THRESHOLD}\n[tools.llm]\ncompression.use_provider = "sum"\n`);
    const before = fake.requests.length;
    fake.script('director', call('delegate_repo', { task: 'read f0..f59', context_refs: [] }), { text: 'all read' });
    for (let i = 0; i < 60; i++) fake.script('repo', call('read_file', { path: `f${i}.txt` }, i));
    fake.script('repo', exit('read 60 files'));
    for (let i = 0; i < 60; i++) fake.script('compression', { text: `summary ${i}: files read so far, nothing else found` });
    const r = await runTask(rt, { prompt: 'read everything', workspace: ws, ...cfg, taskId: 'sixty' });
    expect(r.stopReason).toBe('plain_text');
    expect(r.text).toBe('all read');
    expect(r.notes.find((x) => x.agent === 'repo')?.handoff.conclusion).toBe('read 60 files');

    const repoReqs = fake.requests.slice(before).filter((q) => q.agent === 'repo');
    expect(repoReqs).toHaveLength(61);
    for (const q of repoReqs) {
      expect(bodyTokens(q)).toBeLessThanOrEqual(THRESHOLD * 1.25);
      expect(wirePairsIntact(q)).toBe(true);
    }
    expect(envelopes.some((e) => e.taskId === 'sixty' && e.payload.type === 'context_compressed')).toBe(true);
    const summaries = fake.requests.slice(before).filter((q) => q.agent === 'compression');
    expect(summaries.length).toBeGreaterThan(0);
    expect(new Set(summaries.map((q) => q.body.model))).toEqual(new Set(['sum-model']));
    // the meter's real counts ran on the process's CPU pool: no fallback to the estimate
    expect(envelopes.filter((e) => e.payload.type === 'log' && e.payload.message.includes('token count failed'))).toEqual([]);

    const path = repoRollout(r.rolloutPath, 'sixty');
    const records = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(records.filter((x) => x.type === 'compacted').length).toBeGreaterThan(0);
    // resume: replaying the rollout gives the list the last request was built from, plus the exit turn
    const replay = await rt.connect<StoreApi>(STORE_ACTOR).readReplay(path);
    expect(replay.ok).toBe(true);
    if (!replay.ok) return;
    expect(pairsIntact(replay.messages)).toBe(true);
    const last = wire(repoReqs.at(-1) as RecordedRequest);
    const tools = (ms: { role: string; content?: unknown }[]): unknown[] => ms.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(tools(replay.messages.slice(0, -2))).toEqual(tools(last));
    expect(replay.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(last.filter((m) => m.role === 'user').map((m) => m.content));
    expect(replay.messages.some((m) => m.role === 'user' && m.content.startsWith(SUMMARY_HEADER))).toBe(true);
  }, 120_000);

  const OVERFLOWS = [
    { name: 'OpenAI context_length_exceeded', format: 'openai', fault: { kind: 'status', status: 400, code: 'context_length_exceeded', message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 5120 tokens." } },
    { name: 'Anthropic "prompt is too long"', format: 'anthropic', fault: { kind: 'status', status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
    { name: 'HTTP 413', format: 'openai', fault: { kind: 'status', status: 413, message: 'Request Entity Too Large' } },
  ] as const;
  it.each(OVERFLOWS)('$name from the provider: the run compresses, retries the step once and finishes', async ({ name, format, fault }) => {
    const taskId = `overflow-${OVERFLOWS.findIndex((o) => o.name === name)}`;
    const cfg = await configWith(taskId, '', format);
    const before = fake.requests.length;
    fake.script('director', call('delegate_repo', { task: 'read four files', context_refs: [] }), { text: 'recovered' });
    for (let i = 0; i < 4; i++) fake.script('repo', call('read_file', { path: `f${i}.txt` }, i));
    fake.script('repo', { fault: { ...fault } }, exit('read four'));
    const r = await runTask(rt, { prompt: 'read four', workspace: ws, ...cfg, taskId });
    expect(r.text).toBe('recovered');
    expect(r.notes.find((x) => x.agent === 'repo')?.handoff.conclusion).toBe('read four');
    const repoReqs = fake.requests.slice(before).filter((q) => q.agent === 'repo');
    expect(repoReqs.map((q) => q.format)).toEqual(Array(6).fill(format));
    const [failed, retried] = repoReqs.slice(-2) as [RecordedRequest, RecordedRequest];
    expect(bodyTokens(retried)).toBeLessThan(bodyTokens(failed));
    expect(wirePairsIntact(retried)).toBe(true);
    expect(envelopes.some((e) => e.taskId === taskId && e.payload.type === 'context_compressed' && e.payload.agent === 'repo')).toBe(true);
  }, 60_000);
  it('a session continued after its Director compressed: the next turn starts from the compacted memory and the restored plans', async () => {
    const THRESHOLD = 8000;
    const cfg = await configWith('resume', `[enhanced_commander]\ncontext_compression_threshold = ${THRESHOLD}\n`);
    const before = fake.requests.length;
    // turn 1: the Director reads 30 files itself (each step a plan), compresses (tier 1 alone cannot hold 30 reads at
    // 8000: tier 2 summarises), answers (claiming no work: no reminder)
    for (let i = 0; i < 30; i++) fake.script('director', call('read_file', { path: `f${i}.txt` }, i));
    fake.script('director', { text: 'turn one done' });
    for (let i = 0; i < 20; i++) fake.script('compression', { text: `summary ${i}: f0.. read` });
    const one = await runTask(rt, { prompt: 'read f0..f29', workspace: ws, ...cfg, taskId: 'resume-1' });
    expect(one.text).toBe('turn one done');
    expect(envelopes.some((e) => e.taskId === 'resume-1' && e.payload.type.startsWith('context_'))).toBe(true);
    // the summary call used the agent's own provider (no [tools.llm] here)
    expect(new Set(fake.requests.slice(before).filter((q) => q.agent === 'compression').map((q) => q.body.model))).toEqual(new Set(['fake-model']));

    // turn 2: the provider keeps saying "too long" until the list was rebuilt from the plans (tier 3), which needs a
    // non-empty thinklink store before this turn's first answer: only the plans turn 1 left in its rollout
    const mark = fake.requests.length;
    const overflow: FakeReply = { fault: { kind: 'status', status: 400, code: 'context_length_exceeded', message: 'maximum context length exceeded' } };
    const untilRebuilt = (q: RecordedRequest): FakeReply => (JSON.stringify(q.body.messages).includes(REBUILD_HEADER) ? { text: 'turn two done' } : overflow);
    fake.script('director', ...Array.from({ length: 7 }, () => untilRebuilt));
    const two = await runTask(rt, { prompt: 'what did you read?', workspace: ws, ...cfg, taskId: 'resume-2', session: { resume: one.session.id } });
    expect(two.session).toMatchObject({ id: one.session.id, resumed: true });
    expect(two.text).toBe('turn two done');
    const reqs = fake.requests.slice(mark).filter((q) => q.agent === 'director');
    // the first request of the continued turn is turn 1's compacted memory: it fits and keeps every pair
    const first = reqs[0] as RecordedRequest;
    expect(JSON.stringify(first.body.messages)).toContain('read f0..f29');
    expect(bodyTokens(first)).toBeLessThanOrEqual(THRESHOLD * 1.25);
    for (const q of reqs) expect(wirePairsIntact(q)).toBe(true);
    expect(envelopes.some((e) => e.taskId === 'resume-2' && e.payload.type === 'context_ultimate_compressed')).toBe(true);
    // the rebuilt context holds turn 1's last plans
    const answered = reqs.find((q) => JSON.stringify(q.body.messages).includes(REBUILD_HEADER));
    expect(JSON.stringify(answered?.body.messages)).toContain('read f29');
  }, 120_000);
});
