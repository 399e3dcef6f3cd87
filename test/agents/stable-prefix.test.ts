// Prompt-cache prefix: each Director request's bytes, up to the end of its history, open the next request, between
// two steps and between two turns of a session (real workers, store, tools and SDKs; only the model is scripted).
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import { loadConfig } from '../../src/runtime/config/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../../src/actors/llm/fake/script.js';
import { runTask } from '../../src/actors/agents/run-task.js';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';

const root = mkdtempSync(join(tmpdir(), 'yagent-prefix-'));
const ws = join(root, 'ws');
let fake: FakeProvider;
let rt: Runtime;
let n = 0;
const read = (path: string): FakeReply => ({ text: `<thought>\ngoal: read\nstep: read ${path}\nreason: asked\n</thought>`, toolCalls: [{ id: `r${++n}`, name: 'read_file', arguments: JSON.stringify({ path }) }] });

beforeAll(async () => {
  expect(existsSync(resolve('dist', AGENT_MODULE)), 'run `npx tsc -p tsconfig.build.json` first').toBe(true);
  fake = await FakeProvider.start({ chunkDelayMs: 0 });
  const home = join(root, 'home');
  process.env.YAGENT_HOME = home;
  process.env.YAGENT_NOTES_ROOT = join(home, 'notes');
  mkdirSync(ws, { recursive: true });
  for (let i = 0; i < 3; i++) writeFileSync(join(ws, `f${i}.txt`), `file ${i}\n`.repeat(20));
  rt = await Runtime.start({ hasResponder: true });
  await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: home, notesRoot: join(home, 'notes') } });
}, 60_000);

afterAll(async () => {
  await rt?.shutdown();
  await fake?.close();
});

/** The bytes of a request up to the end of its last message: what the next request must open with. */
const historyPrefix = (raw: string): string => raw.slice(0, raw.lastIndexOf('}]') + 1);

describe.each(['openai', 'anthropic'] as const)('stable request prefix (%s)', (format) => {
  it('two steps and two turns: each request up to its last message is a byte prefix of the next', async () => {
    const configPath = join(root, `${format}.toml`);
    const url = format === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl;
    writeFileSync(configPath, `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\napi_format = "${format}"\nmodel = "fake-model"\napi_base_url = "${url}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n`);
    const { config } = await loadConfig({ configPath });
    const mark = fake.requests.length;
    fake.script('director', read('f0.txt'), read('f1.txt'), { text: 'f0 and f1 each repeat one line.' });
    const one = await runTask(rt, { prompt: 'what is in f0 and f1?', workspace: ws, config, configPath, taskId: `${format}-1` });
    expect(one.text).toBe('f0 and f1 each repeat one line.');
    const turnOne = fake.requests.length;
    fake.script('director', read('f2.txt'), { text: 'f2 repeats one line too.' });
    const two = await runTask(rt, { prompt: 'and f2?', workspace: ws, config, configPath, taskId: `${format}-2`, session: { resume: one.session.id } });
    expect(two.text).toBe('f2 repeats one line too.');
    const reqs = fake.requests.slice(mark).filter((q) => q.agent === 'director');
    const firstOfTurnTwo = fake.requests.slice(turnOne).find((q) => q.agent === 'director') as RecordedRequest;
    expect(reqs.map((q) => q.raw.length)).toHaveLength(5);
    expect(reqs.indexOf(firstOfTurnTwo)).toBe(3);
    // every pair: steps 1→2, 2→3 of turn one, its last step → turn two's first, then turn two's steps
    for (let i = 0; i + 1 < reqs.length; i++) {
      const a = (reqs[i] as RecordedRequest).raw;
      const b = (reqs[i + 1] as RecordedRequest).raw;
      const keep = historyPrefix(a);
      expect(keep.length).toBeGreaterThan(a.length * 0.95);
      expect(b.startsWith(keep), `request ${i + 1} parts from request ${i} at byte ${[...keep].findIndex((c, k) => b[k] !== c)}`).toBe(true);
    }
  }, 60_000);
});
