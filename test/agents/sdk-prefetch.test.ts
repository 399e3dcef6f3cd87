// The agent actor starts importing its provider's SDK at run start: the right package per agent, never a throw.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/runtime/config/index.js';
import { prefetchSdk, sdkModuleFor } from '../../src/actors/agents/sdk-prefetch.js';

const prov = (name: string, fmt: string): string => `[global.llm.providers.${name}]\nmodel = "m"\napi_base_url = "http://127.0.0.1:9"\napi_key = "k"\napi_format = "${fmt}"\n`;
const text = `[global.llm]\nuse_provider = "oa"\n${prov('oa', 'openai')}${prov('an', 'anthropic')}[agents.llm]\ncoding.use_provider = "an"\n`;

describe('sdk prefetch', () => {
  it('names the SDK of the provider each agent resolves to', () => {
    const cfg = parseConfigText(text, 'c.toml', {});
    expect(sdkModuleFor(cfg, 'director')).toBe('openai');
    expect(sdkModuleFor(cfg, 'coding')).toBe('@anthropic-ai/sdk');
  });

  it('a provider that does not resolve names nothing and the prefetch resolves quietly', async () => {
    const cfg = parseConfigText(text, 'c.toml', {});
    cfg.agentProviders['repo'] = 'missing';
    expect(sdkModuleFor(cfg, 'repo')).toBeNull();
    await expect(prefetchSdk(cfg, 'repo')).resolves.toBeUndefined();
    await expect(prefetchSdk(cfg, 'director')).resolves.toBeUndefined();
  });
});
