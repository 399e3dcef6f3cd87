// Sessions/recovery tests: a real runtime, store actor and agent workers on the loopback fake model.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runtime } from '../../src/runtime/runtime.js';
import { loadConfig } from '../../src/runtime/config/index.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { STORE_ACTOR, STORE_MODULE } from '../../src/store/client.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeReply } from '../../src/actors/llm/fake/script.js';
import type { RunTaskOptions } from '../../src/actors/agents/run-task.js';

export const THOUGHT = '<thought>\ngoal: g\nstep: s\nreason: r\nplan:\n[>] s\n</thought>';
let n = 0;
export const call = (name: string, args: Record<string, unknown>): FakeReply => ({ text: THOUGHT, toolCalls: [{ id: `c${++n}`, name, arguments: JSON.stringify(args) }] });
export const exit = (conclusion: string): FakeReply => call('agent_exit', { conclusion, status: 'ok', facts: [], artifacts: [] });

/** Polls real I/O (the fake's request log, files, live actors) until `cond` holds; fails naming `what` past a
 *  generous deadline (a loaded 2-core CI box: a wait is for the event, never a count of short sleeps). */
export async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface World {
  root: string;
  home: string;
  fake: FakeProvider;
  rt: Runtime;
  base: Omit<RunTaskOptions, 'prompt'>;
  envelopes: Envelope[];
  close(): Promise<void>;
}

export async function world(): Promise<World> {
  const root = mkdtempSync(join(tmpdir(), 'yagent-sessions-'));
  const fake = await FakeProvider.start();
  const home = join(root, 'home');
  process.env.YAGENT_HOME = home;
  process.env.YAGENT_NOTES_ROOT = join(home, 'notes');
  const configPath = join(root, 'config.toml');
  writeFileSync(
    configPath,
    `[global.llm]\nuse_provider = "fake"\n[global.llm.providers.fake]\nmodel = "fake-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n[agent]\ndelegate_idle_timeout = "30s"\n`,
  );
  const { config } = await loadConfig({ configPath });
  const rt = await Runtime.start({ hasResponder: true });
  await rt.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: { root: home, notesRoot: join(home, 'notes') } });
  const envelopes: Envelope[] = [];
  rt.dispatcher.consume({ name: 'sessions-test' }, (env) => {
    envelopes.push(env);
    if (env.payload.type === 'user_help_needed') rt.respondUserHelp({ requestId: env.payload.requestId, approved: true, scope: 'once' });
  });
  const workspace = join(root, 'ws');
  mkdirSync(workspace, { recursive: true });
  return {
    root,
    home,
    fake,
    rt,
    base: { workspace, config, configPath },
    envelopes,
    async close() {
      await rt.shutdown();
      await fake.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
