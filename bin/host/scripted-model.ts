// The scripted model: the loopback fake provider driven by a script, and a config pointed at it.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeStep } from '../../src/actors/llm/fake/script.js';
import { setKeyInSection } from '../../src/runtime/config/persist.js';
import { importModule } from '../../src/runtime/import-module.js';

/** A script: steps per agent identity, or a function that scripts the provider itself. */
export type ModelScript = Record<string, FakeStep[]> | ((fake: FakeProvider) => void);

export async function startScriptedModel(script: ModelScript): Promise<FakeProvider> {
  const fake = await FakeProvider.start({ model: 'scripted-model' });
  if (typeof script === 'function') script(fake);
  else for (const [agent, steps] of Object.entries(script)) fake.script(agent, ...steps);
  return fake;
}

/** YAGENT_FAKE_SCRIPT=<module.mjs>: tests and benchmarks run the real CLI on a scripted model. */
export async function loadScriptModule(path: string): Promise<ModelScript> {
  const mod = (await importModule(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  const script = mod.default;
  if (typeof script === 'function' || (typeof script === 'object' && script !== null)) return script as ModelScript;
  throw new Error(`${path}: the fake script module must export default { agent: [steps] } or (fake) => void`);
}

/** The run's config with a `scripted` provider as use_provider; routing fixed so no unscripted classifier call. */
export function scriptedConfigText(baseText: string, fake: FakeProvider): string {
  const section = 'global.llm.providers.scripted';
  let t = setKeyInSection(baseText, section, 'api_format', 'openai');
  t = setKeyInSection(t, section, 'api_base_url', fake.openaiBaseUrl);
  t = setKeyInSection(t, section, 'model', 'scripted-model');
  t = setKeyInSection(t, section, 'api_key', 'scripted');
  t = setKeyInSection(t, 'global.llm', 'use_provider', 'scripted');
  t = setKeyInSection(t, 'routing', 'mode', 'fixed');
  // engine retries off unless the config asks for them (the retry tests do)
  return /^\s*max_retries\s*=/m.test(baseText) ? t : setKeyInSection(t, 'llm', 'max_retries', 0);
}
