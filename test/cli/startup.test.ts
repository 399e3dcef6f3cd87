// Start-up plan of the CLI: the spare it boots first preloads exactly the module the Director runs in.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';
import { distRoot } from '../../src/runtime/paths.js';
import { AGENT_ACTOR_MODULE, SPARE_PLAN, delegationPreload } from '../../bin/host/boot-plan.js';
import type { ProviderConfig } from '../../src/runtime/config/types.js';

const provider = (apiFormat: ProviderConfig['apiFormat']): ProviderConfig => ({
  name: apiFormat,
  model: 'm',
  apiBaseUrl: 'http://127.0.0.1:1',
  apiKey: 'k',
  apiFormat,
  contextWindow: undefined,
  temperature: undefined,
  maxTokens: undefined,
  reasoningEffort: undefined,
  fallbackProviders: [],
});

describe('start-up plan', () => {
  it('the prestarted spare preloads the module runTask spawns the Director from', () => {
    expect(AGENT_ACTOR_MODULE).toBe(AGENT_MODULE);
    expect(SPARE_PLAN.preload).toEqual([AGENT_MODULE]);
    expect(existsSync(join(distRoot(), AGENT_MODULE))).toBe(true);
  });

  it('delegation spares preload only the SDKs the configured providers speak', () => {
    expect(delegationPreload({ providers: { a: provider('openai'), b: provider('openai') } })).toEqual([AGENT_MODULE, 'openai']);
    expect(delegationPreload({ providers: { a: provider('anthropic') } })).toEqual([AGENT_MODULE, '@anthropic-ai/sdk']);
    expect(delegationPreload({ providers: { a: provider('openai'), b: provider('anthropic') } })).toEqual([AGENT_MODULE, '@anthropic-ai/sdk', 'openai']);
  });
});
