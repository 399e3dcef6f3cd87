// `/model`'s picker (bin/host/model-choices.ts) on a config set up for a local server: a provider on loopback with no
// key is usable, as the config loader and `yagent setup` say (seen with a real llama-server: the picker refused the
// provider the TUI was running on, "it has no api_key").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkChoice, modelChoices } from '../../bin/host/model-choices.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { YagentConfig } from '../../src/runtime/config/types.js';

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp', model: '/models/wire-probe.gguf' });
  dir = mkdtempSync(join(tmpdir(), 'yagent-choices-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(providers: string): string {
  const path = join(dir, `c${Math.random().toString(36).slice(2)}.toml`);
  writeFileSync(path, `[global.llm]\nuse_provider = "local"\n\n${providers}`, { mode: 0o600 });
  return path;
}

describe('/model on a local server configured without a key', () => {
  it('the keyless loopback provider can be picked and its server is asked for its models', async () => {
    const path = config(`[global.llm.providers.local]\napi_format = "openai"\napi_base_url = "${fake.openaiBaseUrl}"\nmodel = "/models/wire-probe.gguf"\n`);
    const choices = await modelChoices(path, undefined as unknown as YagentConfig);
    expect(choices).toEqual([{ name: 'local', model: '/models/wire-probe.gguf', baseUrl: fake.openaiBaseUrl, refused: null, models: ['/models/wire-probe.gguf'] }]);
    expect(checkChoice(choices, 'local')).toBeNull();
  });

  it('a remote provider without a key is still refused, saying what to set', async () => {
    const path = config(`[global.llm.providers.local]\napi_format = "openai"\napi_base_url = "${fake.openaiBaseUrl}"\nmodel = "m"\n\n[global.llm.providers.cloud]\napi_format = "openai"\napi_base_url = "https://api.example.invalid/v1"\nmodel = "m"\n`);
    const choices = await modelChoices(path, undefined as unknown as YagentConfig);
    expect(choices.find((c) => c.name === 'cloud')?.refused).toBe('it has no api_key: set api_key or api_key_env, or run /setup');
  });
});
