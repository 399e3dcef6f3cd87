// Failures that do not stop a run are published as `log` warnings, never swallowed: a timeline that cannot be
// written, a board that cannot be indexed or listed ("0 notes" is never reported when the listing failed).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';
import { runTask } from '../../src/actors/agents/run-task.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeReply } from '../../src/actors/llm/fake/script.js';
import { loadConfig } from '../../src/runtime/config/index.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';

const THOUGHT = '<thought>\ngoal: g\nstep: s\nreason: r\nplan:\n[>] s\n</thought>';
const call = (id: string, name: string, args: Record<string, unknown>): FakeReply => ({ text: THOUGHT, toolCalls: [{ id, name, arguments: JSON.stringify(args) }] });

const root = mkdtempSync(join(tmpdir(), 'yagent-swallowed-'));
let fake: FakeProvider;
let rt: Runtime;
const envelopes: Envelope[] = [];

beforeAll(async () => {
  expect(existsSync(resolve('dist', AGENT_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
  fake = await FakeProvider.start();
  const home = join(root, 'home');
  // a file where the timeline directory should be: every timeline write fails for real
  mkdirSync(join(home, 'data'), { recursive: true });
  writeFileSync(join(home, 'data', 'timeline'), 'not a directory');
  rt = await Runtime.start({ hasResponder: true });
  await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: home, notesRoot: join(home, 'notes') } });
  rt.dispatcher.consume({ name: 'swallowed-test' }, (env) => void envelopes.push(env));
}, 60_000);

afterAll(async () => {
  await rt?.shutdown();
  await fake?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('swallowed failures become warnings', () => {
  it('recordTimeline, buildIndex and listNotes failures are log warnings; the result says notes are unknown, not empty', async () => {
    const configPath = join(root, 'config.toml');
    writeFileSync(configPath, `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\nmodel = "m"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n`);
    const { config } = await loadConfig({ configPath });
    const workspace = join(root, 'ws');
    mkdirSync(workspace, { recursive: true });
    fake.script('director', call('d1', 'delegate_repo', { task: 'look around', context_refs: [] }), { text: 'done' }, { text: 'done' });
    fake.script('repo', call('r1', 'agent_exit', { conclusion: 'looked', status: 'ok', facts: [], artifacts: [] }), { text: 'ok' });
    // a blank board id is refused by the store (EMPTY_BOARD): indexing and listing fail for real
    const r = await runTask(rt, { workspace, config, configPath, prompt: 'look', taskId: 'swallowed-1', boardId: ' ', yolo: true });
    expect(r.text).toBe('done');
    const warnings = envelopes.flatMap((e) => (e.taskId === 'swallowed-1' && e.payload.type === 'log' && e.payload.level === 'warn' ? [e.payload] : []));
    const sources = new Set(warnings.map((w) => w.source));
    expect([...sources].sort()).toEqual(['buildIndex', 'listNotes', 'recordTimeline']);
    expect(warnings.find((w) => w.source === 'recordTimeline')?.message).toMatch(/timeline entry \(repo start\) not recorded: /);
    expect(warnings.find((w) => w.source === 'listNotes')?.message).toMatch(/could not be listed: .*empty board id/);
    expect(r.notes).toEqual([]);
    expect(r.notesError).toMatch(/could not be listed/);
  }, 60_000);
});
