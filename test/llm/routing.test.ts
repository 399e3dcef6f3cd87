// Routing wraps every agent engine: override > tier > use_provider; classifier deadline; config keys through the factory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { buildAgentEngine, buildToolEngine } from '../../src/actors/llm/build.js';
import { RoutingEngine } from '../../src/actors/llm/routing/router.js';
import { parseTier } from '../../src/actors/llm/routing/classifier.js';
import { createSharedLlmState, LLM_SHARED_KEY, parseConfigText, type YagentConfig } from '../../src/runtime/config/index.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { request } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start();
});
afterAll(async () => {
  await fake.close();
});

function config(extra: string): YagentConfig {
  const prov = (n: string) => `[global.llm.providers.${n}]\nmodel = "model-${n}"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n`;
  return parseConfigText(
    `[global.llm]\nuse_provider = "base"\n${prov('base')}${prov('fastp')}${prov('highp')}${prov('other')}${extra}\n[routing.tiers]\nfast = "fastp"\nhigh = "highp"\n[routing.baselines]\ncoding = "high"\nrepo = "fast"\n`,
    'c.toml',
    {},
  );
}

const noSleep = async () => undefined;
const models = (agent: string) => fake.requestsFor(agent).map((r) => r.body['model']);

describe('routing engine', () => {
  it('every agent engine comes out of the factory wrapped in the routing engine', () => {
    const e = buildAgentEngine(config(''), 'director', { publish: () => undefined });
    expect(e).toBeInstanceOf(RoutingEngine);
  });

  it('auto: the fast model classifies once per user turn and the tier picks the provider (model_routed event)', async () => {
    const events: Event[] = [];
    fake.script('coding:router', { text: '{"tier":"high"}' });
    fake.script('coding', { text: 'step1' }, { text: 'step2' });
    const e = buildAgentEngine(config(''), 'coding', { publish: (ev) => events.push(ev), sleep: noSleep });
    await e.call(request('coding'));
    await e.call(request('coding'));
    expect(models('coding:router')).toEqual(['model-fastp']);
    expect(models('coding')).toEqual(['model-highp', 'model-highp']);
    expect(events.filter((e) => e.type === 'model_routed')).toEqual([{ type: 'model_routed', agent: 'coding', tier: 'high', provider: 'highp', reason: 'classified' }]);
    expect(e.describe()).toEqual({ provider: 'highp', model: 'model-highp' });
  });

  it('a classifier that misses its 30 s deadline falls back to the role baseline', async () => {
    const clock = new ManualClock();
    const events: Event[] = [];
    let reached!: () => void;
    const classifying = new Promise<void>((r) => (reached = r));
    // the classifier's request reaches the fake and stalls after one event
    fake.script('repo:router', () => (reached(), { text: ['{"tier"'], fault: { kind: 'stall', afterEvents: 1 } }));
    fake.script('repo', { text: 'answer' });
    const e = buildAgentEngine(config(''), 'repo', { publish: (ev) => events.push(ev), clock, sleep: noSleep });
    const p = e.call(request('repo'));
    await classifying;
    const timers = clock.pending();
    clock.advance(29_999);
    expect(clock.pending()).toBe(timers); // no timer fired: the deadline is not due yet
    await new Promise((r) => setImmediate(r));
    expect(events.filter((e) => e.type === 'model_routed')).toEqual([]);
    clock.advance(1);
    expect(clock.pending()).toBeLessThan(timers); // the 30 s deadline fired
    await expect(p).resolves.toMatchObject({ text: 'answer' });
    expect(models('repo')).toEqual(['model-fastp']);
    expect(events.find((e) => e.type === 'model_routed')).toMatchObject({ type: 'model_routed', tier: 'fast', provider: 'fastp' });
    expect((events.find((e) => e.type === 'model_routed') as { reason: string }).reason).toContain('timed out');
  });

  it('runtime override beats the routing tier; clearing it returns to routing; the wrapper stays', async () => {
    fake.script('chat', { text: 'a' }, { text: 'b' });
    fake.script('chat:router', { text: '{"tier":"fast"}' });
    const e = buildAgentEngine(config(''), 'chat', { publish: () => undefined, sleep: noSleep });
    e.setOverride('other');
    await e.call(request('chat'));
    expect(fake.requestsFor('chat:router')).toHaveLength(0);
    e.setOverride(null);
    await e.call(request('chat'));
    expect(models('chat')).toEqual(['model-other', 'model-fastp']);
  });

  it('fixed mode never classifies and uses use_provider', async () => {
    fake.script('devops', { text: 'x' });
    const e = buildAgentEngine(config('[routing]\nmode = "fixed"'), 'devops', { publish: () => undefined });
    await e.call(request('devops'));
    expect(fake.requestsFor('devops:router')).toHaveLength(0);
    expect(models('devops')).toEqual(['model-base']);
  });

  it('parses only a valid {"tier": …} reply', () => {
    expect(parseTier('sure: {"tier": "balanced"}')).toBe('balanced');
    expect(parseTier('{"tier":"huge"}')).toBeNull();
    expect(parseTier('high')).toBeNull();
  });
});

describe('[llm] keys change behaviour through the factory', () => {
  const build = (cfgText: string, agent: string, events: Event[] = []) => {
    const cfg = config(cfgText);
    cfg.routing.mode = 'fixed';
    return buildAgentEngine(cfg, agent, { publish: (e) => events.push(e), sleep: noSleep, shared: { [LLM_SHARED_KEY]: createSharedLlmState({ maxInFlightRequests: 8 }) } });
  };
  const e500 = { fault: { kind: 'status' as const, status: 500 } };

  it('max_retries bounds the attempts', async () => {
    fake.script('mr1', e500, e500, e500, e500);
    await expect(build('[llm]\nmax_retries = 1\nenable_fallback = false', 'mr1').call(request('mr1'))).rejects.toThrow();
    expect(fake.requestsFor('mr1')).toHaveLength(2);
    fake.script('mr3', e500, e500, e500, e500);
    await expect(build('[llm]\nmax_retries = 3', 'mr3').call(request('mr3'))).rejects.toThrow();
    expect(fake.requestsFor('mr3')).toHaveLength(4);
  });

  it('fallback_providers with enable_fallback switch providers; enable_fallback = false does not', async () => {
    const withFb = (flag: string) => `[llm]\nmax_retries = 0\nfallback_max_retries = 0\n${flag}\n`;
    const events: Event[] = [];
    const cfg = config(withFb(''));
    cfg.routing.mode = 'fixed';
    cfg.providers['base']?.fallbackProviders.push({ provider: 'other', weight: 1 });
    fake.script('fb-on', e500, { text: 'rescued' });
    const on = buildAgentEngine(cfg, 'fb-on', { publish: (e) => events.push(e), sleep: noSleep });
    await expect(on.call(request('fb-on'))).resolves.toMatchObject({ text: 'rescued', provider: 'other' });
    expect(events.filter((e) => e.type === 'provider_fallback')).toMatchObject([{ type: 'provider_fallback', from: 'base', to: 'other' }]);
    const off = config(withFb('enable_fallback = false'));
    off.routing.mode = 'fixed';
    off.providers['base']?.fallbackProviders.push({ provider: 'other', weight: 1 });
    fake.script('fb-off', e500, { text: 'never' });
    await expect(buildAgentEngine(off, 'fb-off', { publish: () => undefined, sleep: noSleep }).call(request('fb-off'))).rejects.toThrow();
    expect(fake.requestsFor('fb-off')).toHaveLength(1);
  });

  it('circuit_breaker_threshold > 0 stops calling a failing provider; 0 keeps calling', async () => {
    fake.script('cb', e500, e500, e500, e500, e500, e500);
    const on = build('[llm]\nmax_retries = 0\ncircuit_breaker_threshold = 2\nenable_fallback = false\n[global.llm.providers.cbp]\nmodel="m"\napi_base_url="http://u/v1"\napi_key="k"', 'cb');
    for (let i = 0; i < 4; i++) await on.call(request('cb')).catch(() => undefined);
    expect(fake.requestsFor('cb')).toHaveLength(2);
    fake.script('nocb', e500, e500, e500, e500);
    const off = build('[llm]\nmax_retries = 0\ncircuit_breaker_threshold = 0', 'nocb');
    for (let i = 0; i < 4; i++) await off.call(request('nocb')).catch(() => undefined);
    expect(fake.requestsFor('nocb')).toHaveLength(4);
  });

  it('timeout bounds one attempt', async () => {
    fake.script('to', { text: ['a'], fault: { kind: 'stall', afterEvents: 1 } });
    const e = build('[llm]\ntimeout = "200ms"\nmax_retries = 0', 'to');
    await expect(e.call(request('to'))).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it("a provider's context_window is the window model_info announces (the TUI context bar); without one, the catalogue's", async () => {
    const announced = async (window: string, model: string): Promise<unknown> => {
      const events: Event[] = [];
      const cfg = parseConfigText(`[global.llm]\nuse_provider = "w"\n[global.llm.providers.w]\nmodel = "${model}"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n${window}[routing]\nmode = "fixed"\n`, 'c.toml', {});
      fake.script('window', { text: 'x' });
      await buildAgentEngine(cfg, 'window', { publish: (e) => events.push(e), sleep: noSleep }).call(request('window'));
      return events.find((e) => e.type === 'model_info');
    };
    expect(await announced('context_window = 50000\n', 'gpt-4o')).toMatchObject({ contextWindow: 50000 });
    expect(await announced('', 'gpt-4o')).toMatchObject({ contextWindow: 128000 });
    expect(await announced('', 'a-local-model')).not.toHaveProperty('contextWindow');
  });

  it('tool engines resolve through [tools.llm]', async () => {
    fake.script('director', { text: 't' });
    const cfg = config('[tools.llm]\nthinking.use_provider = "other"\n');
    await buildToolEngine(cfg, 'thinking', 'director', { publish: () => undefined }).call(request('director'));
    expect(models('director')).toEqual(['model-other']);
  });
});

describe('auto routing with fewer than two distinct tiers', () => {
  const cfgWith = (tiers: string): YagentConfig => {
    const prov = (n: string) => `[global.llm.providers.${n}]\nmodel = "model-${n}"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n`;
    return parseConfigText(`[global.llm]\nuse_provider = "base"\n${prov('base')}${prov('fastp')}\n[routing]\nmode = "auto"\n${tiers}`, 'c.toml', {});
  };

  it.each([
    ['no tiers configured', ''],
    ['every tier naming the same provider as use_provider', '[routing.tiers]\nfast = "base"\nbalanced = "base"\nhigh = "base"\n'],
  ])('%s: no classifier request reaches the server and nothing is routed', async (_name, tiers) => {
    const agent = `single-tier-${tiers.length}`;
    fake.script(agent, { text: 'one' }, { text: 'two' });
    const events: Event[] = [];
    const e = buildAgentEngine(cfgWith(tiers), agent, { publish: (ev) => events.push(ev), sleep: noSleep });
    await e.call(request(agent));
    await e.call(request(agent, { messages: [{ role: 'user', content: 'another turn' }] }));
    expect(fake.requestsFor(`${agent}:router`)).toHaveLength(0);
    expect(models(agent)).toEqual(['model-base', 'model-base']);
    expect(events.filter((x) => x.type === 'model_routed')).toEqual([]);
  });

  it('one tier on another provider still routes (two distinct choices)', async () => {
    const agent = 'two-choices';
    fake.script(`${agent}:router`, { text: '{"tier":"fast"}' });
    fake.script(agent, { text: 'x' });
    const e = buildAgentEngine(cfgWith('[routing.tiers]\nfast = "fastp"\n'), agent, { publish: () => undefined, sleep: noSleep });
    await e.call(request(agent));
    expect(fake.requestsFor(`${agent}:router`)).toHaveLength(1);
    expect(models(agent)).toEqual(['model-fastp']);
  });
});
