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
const wire = (r: RecordedRequest): WireMessage[] => (r.body.messages ?? []) as WireMessage[];
const bodyTokens = (r: RecordedRequest): number => estimateTokens(JSON.stringify(r.body.messages ?? ''));
/** Every tool call in the request is answered by a result before anything else, and every result has its call. */
function wirePairsIntact(msgs: WireMessage[]): boolean {
  const open = new Set<string>();
  for (const m of msgs) {
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

async function configWith(name: string, extra: string): Promise<{ config: YagentConfig; configPath: string }> {
  const configPath = join(root, `${name}.toml`);
  writeFileSync(
    configPath,
    `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\nmodel = "fake-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n[agent]\ndelegate_idle_timeout = "60s"\nrepo_max_steps = 80\n${extra}`,
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
    const cfg = await configWith('small', `[enhanced_commander]\ncontext_compression_threshold = ${THRESHOLD}\n`);
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
      expect(wirePairsIntact(wire(q))).toBe(true);
    }
    expect(envelopes.some((e) => e.taskId === 'sixty' && e.payload.type === 'context_compressed')).toBe(true);
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

  it('a context-length error from the provider compresses and retries once; the run finishes', async () => {
    const cfg = await configWith('big', '');
    const before = fake.requests.length;
    fake.script('director', call('delegate_repo', { task: 'read four files', context_refs: [] }), { text: 'recovered' });
    for (let i = 0; i < 4; i++) fake.script('repo', call('read_file', { path: `f${i}.txt` }, i));
    fake.script('repo', { fault: { kind: 'status', status: 400, message: "This model's maximum context length is 4096 tokens (context_length_exceeded)" } }, exit('read four'));
    const r = await runTask(rt, { prompt: 'read four', workspace: ws, ...cfg, taskId: 'overflow' });
    expect(r.text).toBe('recovered');
    expect(r.notes.find((x) => x.agent === 'repo')?.handoff.conclusion).toBe('read four');
    const repoReqs = fake.requests.slice(before).filter((q) => q.agent === 'repo');
    expect(repoReqs).toHaveLength(6);
    const [failed, retried] = repoReqs.slice(-2) as [RecordedRequest, RecordedRequest];
    expect(bodyTokens(retried)).toBeLessThan(bodyTokens(failed));
    expect(wirePairsIntact(wire(retried))).toBe(true);
    expect(envelopes.some((e) => e.taskId === 'overflow' && e.payload.type === 'context_compressed' && e.payload.agent === 'repo')).toBe(true);
  }, 60_000);
});
