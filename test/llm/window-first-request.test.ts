// Issue 29: a run's first model request does not wait for the window probe of a local server; model_info still
// carries the window the server named, and it is out before the call returns.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { buildAgentEngine } from '../../src/actors/llm/build.js';
import { parseConfigText } from '../../src/runtime/config/index.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import { request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp', window: 8192 });
});
afterAll(async () => {
  await fake.close();
});

it('the chat request reaches the server while the probe is held; model_info names the probed window before the call returns', async () => {
  let chatArrived!: () => void;
  const arrived = new Promise<void>((r) => (chatArrived = r));
  // the server answers the probe only once the chat request is in: a first request that waited for it never comes
  fake.infoGate = arrived;
  fake.script('director', () => (chatArrived(), { text: 'hello' }));
  const cfg = parseConfigText(`[global.llm]\nuse_provider = "local"\n[global.llm.providers.local]\nmodel = "qwen-local"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n`, 'c.toml', {});
  const events: Event[] = [];
  const e = buildAgentEngine(cfg, 'director', { publish: (ev) => events.push(ev) });
  const res = await e.call(request('director'));
  expect(res.text).toBe('hello');
  expect(fake.infoRequests.length).toBeGreaterThan(0);
  expect(events.filter((ev) => ev.type === 'model_info')).toEqual([expect.objectContaining({ contextWindow: 8192, windowSource: 'llama.cpp /props n_ctx' })]);
}, 20_000);
