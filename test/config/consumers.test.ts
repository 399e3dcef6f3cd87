// Config text → real consumer: each test changes one key's value and observes the consumer's behaviour change.
import { TRUNCATION_MARK } from '../../src/actors/agents/compression/tier1-rule.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { RecordedRequest } from '../../src/actors/llm/fake/script.js';
import { buildAgentEngine, buildProviderEngine } from '../../src/actors/llm/build.js';
import { settingsFrom } from '../../src/actors/agents/run-task.js';
import { flagsFor } from '../../src/actors/agents/profiles.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { createSharedLlmState, LLM_SHARED_KEY, parseConfigText, type YagentConfig } from '../../src/runtime/config/index.js';
import type { Event } from '../../src/runtime/protocol/index.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { request } from '../llm/helpers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LlmRequest } from '../../src/actors/llm/types.js';
import { exitCall, harnessConfig, makeHarness, ScriptedModel, THOUGHT, type Step } from '../agents/harness.js';
import { estimateCost } from '../../src/actors/llm/catalogue/prices.js';
import { cfg } from './helpers.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start();
});
afterAll(async () => {
  await fake.close();
});

const noSleep = async (): Promise<void> => undefined;
const e500 = { fault: { kind: 'status' as const, status: 500 } };
/** Polls real I/O (the fake's request log) until `cond` holds; fails naming `what` past a generous deadline. */
const waitFor = async (cond: () => boolean, what: string, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** One provider `p` (plus `q`) at the fake; `fields` override or (null) drop the provider's own lines. */
function providerDoc(fields: Record<string, string | null> = {}, extra = ''): string {
  const base: Record<string, string | null> = { model: '"m"', api_base_url: `"${fake.openaiBaseUrl}"`, api_key: '"k"', ...fields };
  const body = Object.entries(base).flatMap(([k, v]) => (v === null ? [] : [`${k} = ${v}`])).join('\n');
  const q = `[global.llm.providers.q]\nmodel = "m-q"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n`;
  return `[global.llm]\nuse_provider = "p"\n[global.llm.providers.p]\n${body}\n${q}[routing]\nmode = "fixed"\n${extra}`;
}
const load = (doc: string, env: Record<string, string> = {}): YagentConfig => parseConfigText(doc, 'c.toml', env);
const fresh = () => ({ [LLM_SHARED_KEY]: createSharedLlmState({ maxInFlightRequests: 8 }) });

describe('provider keys reach the wire', () => {
  const ROWS: [string, Record<string, string | null>, Record<string, string | null>, (r: RecordedRequest) => unknown][] = [
    ['model', { model: '"m-a"' }, { model: '"m-b"' }, (r) => r.body['model']],
    ['api_key', { api_key: '"ka"' }, { api_key: '"kb"' }, (r) => r.headers['authorization']],
    ['api_key_env', { api_key: null, api_key_env: '"KEY_A"' }, { api_key: null, api_key_env: '"KEY_B"' }, (r) => r.headers['authorization']],
    ['temperature', { temperature: '0.5' }, { temperature: '0' }, (r) => r.body['temperature']],
    ['max_tokens', { max_tokens: '100' }, { max_tokens: '0' }, (r) => r.body['max_tokens']],
    ['reasoning_effort', { reasoning_effort: '"low"' }, { reasoning_effort: '"high"' }, (r) => r.body['reasoning_effort']],
    ['api_format', { api_format: '"openai"' }, { api_format: '"anthropic"', api_base_url: `"{anthropic}"` }, (r) => r.format],
  ];
  it.each(ROWS)('%s', async (key, a, b, get) => {
    const seen: unknown[] = [];
    for (const [i, fields] of [a, b].entries()) {
      const agent = `wire-${key}-${i}`;
      fake.script(agent, { text: 'ok' });
      const doc = providerDoc(fields).replace('{anthropic}', fake.anthropicBaseUrl);
      const engine = buildProviderEngine(load(doc, { KEY_A: 'va', KEY_B: 'vb' }), 'p', { publish: () => undefined, shared: fresh() });
      await engine.call(request(agent));
      const rec = fake.requestsFor(agent)[0];
      expect(rec).toBeDefined();
      if (rec !== undefined) seen.push(get(rec));
    }
    expect(seen[0]).not.toEqual(seen[1]);
  });

  it('api_base_url decides where the request goes', async () => {
    fake.script('base-url', { text: 'ok' });
    const elsewhere = load(providerDoc({ api_base_url: '"http://127.0.0.1:1/v1"' }, '[llm]\nmax_retries = 0\n'));
    await expect(buildProviderEngine(elsewhere, 'p', { publish: () => undefined, shared: fresh() }).call(request('base-url'))).rejects.toThrow();
    expect(fake.requestsFor('base-url')).toHaveLength(0);
    await buildProviderEngine(load(providerDoc()), 'p', { publish: () => undefined, shared: fresh() }).call(request('base-url'));
    expect(fake.requestsFor('base-url')).toHaveLength(1);
  });
});

describe('[llm] keys through the engine factory', () => {
  it('fallback_providers and fallback_max_retries', async () => {
    const run = async (agent: string, fields: Record<string, string | null>, llm: string) => {
      fake.script(agent, e500, e500, e500, { text: 'rescued' });
      const engine = buildProviderEngine(load(providerDoc(fields, `[llm]\nmax_retries = 0\n${llm}`)), 'p', { publish: () => undefined, shared: fresh(), sleep: noSleep });
      const out = await engine.call(request(agent)).then((r) => r.provider, () => 'failed');
      return { out, models: fake.requestsFor(agent).map((r) => r.body['model']) };
    };
    expect(await run('fb-none', {}, 'fallback_max_retries = 2')).toEqual({ out: 'failed', models: ['m'] });
    expect(await run('fb-0', { fallback_providers: '["q"]' }, 'fallback_max_retries = 0')).toEqual({ out: 'failed', models: ['m', 'm-q'] });
    expect(await run('fb-2', { fallback_providers: '[{ provider = "q", weight = 2 }]' }, 'fallback_max_retries = 2')).toEqual({ out: 'q', models: ['m', 'm-q', 'm-q', 'm-q'] });
  });

  it('circuit_breaker_cooldown decides when the probe goes out', async () => {
    const probeAfter5s = async (cooldown: string, agent: string): Promise<number> => {
      const clock = new ManualClock();
      fake.script(agent, e500, { text: 'probe' });
      const doc = providerDoc({}, `[llm]\nmax_retries = 0\ncircuit_breaker_threshold = 1\ncircuit_breaker_cooldown = "${cooldown}"\n`);
      const engine = buildProviderEngine(load(doc), 'p', { publish: () => undefined, shared: fresh(), clock, sleep: noSleep });
      await engine.call(request(agent)).catch(() => undefined);
      clock.advance(5_000);
      await engine.call(request(agent)).catch(() => undefined);
      return fake.requestsFor(agent).length;
    };
    expect(await probeAfter5s('5s', 'cool-5s')).toBe(2);
    expect(await probeAfter5s('60s', 'cool-60s')).toBe(1);
  });

  it('call_budget bounds one call against a hung server, retries included (10s: gives up at 10 s; 0: the timeout × attempts)', async () => {
    const hung = async (budget: string, agent: string): Promise<{ settledAt: number | null; requests: number }> => {
      const clock = new ManualClock();
      for (let i = 0; i < 3; i++) fake.script(agent, { text: ['x'], fault: { kind: 'stall', afterEvents: 1 } });
      const doc = providerDoc({}, `[llm]\ntimeout = "6s"\nmax_retries = 2\ncall_budget = "${budget}"\n`);
      const engine = buildProviderEngine(load(doc), 'p', { publish: () => undefined, shared: fresh(), clock, sleep: noSleep });
      let settledAt: number | null = null;
      const done = engine.call(request(agent)).catch(() => (settledAt = clock.now()));
      // advance one second at a time, only while the current attempt is armed and at the server
      let attempt = 1;
      for (let step = 0; step < 30 && settledAt === null; step++) {
        await waitFor(() => settledAt !== null || (clock.pending() > 0 && fake.requestsFor(agent).length >= attempt), `attempt ${attempt} armed at the server`);
        if (settledAt !== null) break;
        const armed = clock.pending();
        clock.advance(1_000);
        if (clock.pending() < armed) attempt++;
      }
      await done;
      return { settledAt, requests: fake.requestsFor(agent).length };
    };
    // 10 s budget: attempt 1 times out at 6 s, attempt 2 is cut at the 10 s deadline
    expect(await hung('10s', 'budget-10s')).toEqual({ settledAt: 10_000, requests: 2 });
    expect(await hung('0', 'budget-none')).toEqual({ settledAt: 18_000, requests: 3 });
  });

  it('stream_idle_timeout ends a silent attempt as an error (10s: at 10 s of no byte; 0: never, the call goes on)', async () => {
    const silent = async (idle: string, agent: string): Promise<string> => {
      const clock = new ManualClock();
      fake.script(agent, { fault: { kind: 'silent' } });
      const doc = providerDoc({}, `[llm]\nmax_retries = 0\ncall_budget = "0"\nstream_idle_timeout = "${idle}"\n`);
      const ctl = new AbortController();
      const engine = buildProviderEngine(load(doc), 'p', { publish: () => undefined, shared: fresh(), clock, sleep: noSleep });
      const out = engine.call(request(agent, { signal: ctl.signal })).then(() => 'answered', (e: { code?: string }) => String(e.code));
      await waitFor(() => fake.requestsFor(agent).length === 1, 'the silent call at the server');
      for (let t = 0; t < 12; t++) clock.advance(1_000);
      ctl.abort(new Error('test over'));
      return out;
    };
    expect(await silent('10s', 'idle-10s')).toBe('TIMEOUT');
    expect(await silent('0', 'idle-off')).toBe('CANCELLED');
  });

  it('max_answer_chars caps one streamed answer (5000: a 20 000-character answer fails; default: it arrives)', async () => {
    const run = async (extra: string, agent: string): Promise<string> => {
      fake.script(agent, { text: Array.from({ length: 20 }, () => 'y'.repeat(1000)) });
      const engine = buildProviderEngine(load(providerDoc({}, `[llm]\nmax_retries = 0\n${extra}`)), 'p', { publish: () => undefined, shared: fresh(), sleep: noSleep });
      return engine.call(request(agent)).then((r) => String(r.text.length), (e: { code?: string }) => String(e.code));
    };
    expect(await run('max_answer_chars = 5000\n', 'cap-5000')).toBe('ANSWER_TOO_LARGE');
    expect(await run('', 'cap-default')).toBe('20000');
  });

  it('max_in_flight_requests bounds concurrent calls (1 queues the second call; 0 = unlimited)', async () => {
    const second = async (limit: number, tag: string): Promise<{ whileHeld: number; text: string }> => {
      fake.script(`${tag}-a`, { text: ['x'], fault: { kind: 'stall', afterEvents: 1 } });
      fake.script(`${tag}-b`, { text: 'b' });
      // no shared buffer given: the factory makes the gate from the config value
      const engine = buildProviderEngine(load(providerDoc({}, `[llm]\nmax_in_flight_requests = ${limit}\nmax_retries = 0\n`)), 'p', { publish: () => undefined });
      const ctl = new AbortController();
      const a = engine.call(request(`${tag}-a`, { signal: ctl.signal })).catch(() => undefined);
      await waitFor(() => fake.requestsFor(`${tag}-a`).length > 0, 'the first call at the server');
      const b = engine.call(request(`${tag}-b`)).then((r) => r.text);
      // unlimited: the second call reaches the server while the first is held (wait for that); limited, it must not:
      // a check that something does not happen has no event to wait for (load only makes it weaker, never false)
      if (limit === 0) await waitFor(() => fake.requestsFor(`${tag}-b`).length > 0, 'the unqueued second call at the server');
      else await new Promise((r) => setTimeout(r, 200));
      const whileHeld = fake.requestsFor(`${tag}-b`).length;
      ctl.abort();
      await a;
      return { whileHeld, text: await b }; // a queued call goes on once the slot is free
    };
    expect(await second(0, 'gate0')).toEqual({ whileHeld: 1, text: 'b' });
    expect(await second(1, 'gate1')).toEqual({ whileHeld: 0, text: 'b' });
  });
});

describe('[routing] keys through the routing engine', () => {
  const routed = (extra: string): YagentConfig =>
    load(providerDoc({}, '').replace('mode = "fixed"', `mode = "auto"\n${extra}`));

  it('classifier_timeout is the classifier deadline', async () => {
    const clock = new ManualClock();
    const events: Event[] = [];
    fake.script('devops:router', { text: ['{"tier"'], fault: { kind: 'stall', afterEvents: 1 } });
    fake.script('devops', { text: 'answer' });
    const e = buildAgentEngine(routed('classifier_timeout = "5s"\n[routing.tiers]\nhigh = "q"\n[routing.baselines]\ndevops = "high"'), 'devops', { publish: (ev) => events.push(ev), clock, sleep: noSleep, shared: fresh() });
    const p = e.call(request('devops'));
    await waitFor(() => fake.requestsFor('devops:router').length > 0, 'the classifier call at the server');
    const routedEvents = (): Event[] => events.filter((x) => x.type === 'model_routed');
    clock.advance(4_999);
    expect(routedEvents()).toEqual([]);
    clock.advance(1);
    await expect(p).resolves.toMatchObject({ text: 'answer' });
    expect(routedEvents()[0]).toMatchObject({ type: 'model_routed', tier: 'high' });
  });

  it('a routing tier picks its provider', async () => {
    const model = async (extra: string, agent: string): Promise<unknown> => {
      fake.script(`${agent}:router`, { text: '{"tier":"balanced"}' });
      fake.script(agent, { text: 'ok' });
      await buildAgentEngine(routed(extra), agent, { publish: () => undefined, sleep: noSleep, shared: fresh() }).call(request(agent));
      return fake.requestsFor(agent)[0]?.body['model'];
    };
    expect(await model('[routing.tiers]\nbalanced = "q"', 'tier-q')).toBe('m-q');
    expect(await model('', 'tier-none')).toBe('m');
  });
});

describe('[llm.prices] in the cost estimate', () => {
  it('[llm.prices] beat the catalogue in the cost estimate (input, output, cached_input per million tokens)', () => {
    const entry = { agent: 'director', provider: 'p', model: 'gpt-4o', calls: 1, usage: { inputTokens: 1_000_000, outputTokens: 1_000_000, cachedInputTokens: 500_000, reasoningTokens: 0 } };
    const catalogue = estimateCost([entry], load(providerDoc()).llm.prices);
    // catalogue gpt-4o: 0.5M fresh × 2.5 + 0.5M cached × 1.25 + 1M out × 10
    expect(catalogue.totalUsd).toBeCloseTo(1.25 + 0.625 + 10, 6);
    const priced = load(providerDoc({}, '[llm.prices."gpt-4o"]\ninput = 1\noutput = 2\ncached_input = 0.5\n')).llm.prices;
    expect(estimateCost([entry], priced).totalUsd).toBeCloseTo(0.5 + 0.25 + 2, 6);
    const local = estimateCost([{ ...entry, model: 'qwen2.5-coder' }], {});
    expect([local.totalUsd, local.unpriced, local.entries[0]?.costUsd]).toEqual([0, ['qwen2.5-coder'], null]);
  });
});

describe('[agent] and [blackboard] keys reach the run settings', () => {
  const settings = (extra: string, env: Record<string, string> = {}) => settingsFrom({ prompt: 'x', workspace: '/tmp', config: cfg(extra, env) }, 't', 'b');

  const AGENT: [string, string, string, (s: ReturnType<typeof settings>) => unknown, unknown][] = [
    ...(['director', 'coding', 'repo', 'chat', 'devops', 'browser'] as const).map(
      (a): [string, string, string, (s: ReturnType<typeof settings>) => unknown, unknown] => [
        `${a}_max_steps`, `${a}_max_steps = 7`, `${a}_max_steps = 9`, (s) => flagsFor(a, { maxSteps: s.maxStepsOverride }).maxSteps, 7,
      ],
    ),
    ['delegate_idle_timeout', 'delegate_idle_timeout = "10s"', 'delegate_idle_timeout = "20s"', (s) => s.delegateIdleMs, 10_000],
    ['delegate_total_timeout', 'delegate_total_timeout = "10m"', 'delegate_total_timeout = "1h"', (s) => s.delegateTotalMs, 600_000],
    ['max_parallel_readonly_tools', 'max_parallel_readonly_tools = 1', 'max_parallel_readonly_tools = 3', (s) => flagsFor('coding', { maxParallelReadOnlyTools: s.maxParallelReadOnlyTools }).maxParallelReadOnlyTools, 1],
    ['max_parallel_delegations', 'max_parallel_delegations = 1', 'max_parallel_delegations = 3', (s) => s.maxParallelDelegations, 1],
    ['lang', 'lang = "Chinese"', 'lang = "English"', (s) => s.lang, 'Chinese'],
  ];
  it.each(AGENT)('[agent] keys reach the run settings and loop flags: %s', (_key, a, b, get, expected) => {
    expect(get(settings(`[agent]\n${a}`))).toEqual(expected);
    expect(get(settings(`[agent]\n${b}`))).not.toEqual(expected);
  });

  it('[blackboard] index valves reach the run settings (0 = no index / no trimming; YAGENT_BLACKBOARD=0 = no index)', () => {
    expect(settings('[blackboard]\nindex_max_notes = 0').indexMaxNotes).toBe(0);
    expect(settings('[blackboard]\nindex_max_notes = 5').indexMaxNotes).toBe(5);
    expect(settings('[blackboard]\nindex_max_notes = 5', { YAGENT_BLACKBOARD: '0' }).indexMaxNotes).toBe(0);
    expect(settings('[blackboard]\nindex_line_chars = 0').indexLineChars).toBeLessThan(0);
    expect(settings('[blackboard]\nindex_line_chars = 90').indexLineChars).toBe(90);
  });

  it('[resume] keys reach the run settings (enable, max_replay_messages 0 = no limit, max_restarts; YAGENT_RESUME=0 = off)', () => {
    expect(settings('[resume]\nenable = false').resume).toBe(false);
    expect(settings('[resume]\nenable = true').resume).toBe(true);
    expect(settings('[resume]\nenable = true', { YAGENT_RESUME: '0' }).resume).toBe(false);
    expect(settings('[resume]\nmax_replay_messages = 0').maxReplayMessages).toBe(0);
    expect(settings('[resume]\nmax_replay_messages = 7').maxReplayMessages).toBe(7);
    expect(settings('[resume]\nmax_restarts = 0').maxRestarts).toBe(0);
    expect(settings('[resume]\nmax_restarts = 5').maxRestarts).toBe(5);
    expect(settings('').checkpointWorkspace).toBe(true);
    expect(settings('[resume]\ncheckpoint_workspace = false').checkpointWorkspace).toBe(false);
    expect(settings('').degradeOnWorkspaceChange).toBe(true);
    expect(settings('[resume]\ndegrade_on_workspace_change = false').degradeOnWorkspaceChange).toBe(false);
  });
});

describe('[llm] step_retries reaches every agent loop', () => {
  it('step_retries is how often the loop retries a failed step (0: the first 500 ends the run; 2: the retry answers)', async () => {
    // production chain: config → settingsFrom → RunSettings → flagsFor → loop; the engine itself never retries (max_retries = 0)
    const run = async (n: number): Promise<{ stop: string; calls: number }> => {
      const h = makeHarness({}, { config: load(providerDoc({}, `[llm]\nmax_retries = 0\nstep_retries = ${n}\n`)) });
      fake.script('chat', e500, ...(n > 0 ? [{ text: 'answered after a retry' }] : []));
      const before = fake.requestsFor('chat').length;
      const out = await runAgent(h.env(null), { agent: 'chat', role: 'chat', brief: 'hi', settings: h.settings, delegationId: null, parentSessionId: null });
      return { stop: out.stopReason, calls: fake.requestsFor('chat').length - before };
    };
    expect(await run(0)).toEqual({ stop: 'llm_error', calls: 1 });
    expect(await run(2)).toEqual({ stop: 'plain_text', calls: 2 });
  });
});

describe('[enhanced_commander] keys change what compression does', () => {
  // 4050 chars: 752 cl100k tokens (the meter counts real tokens), five reads ≈ 3800 tokens
  const BIG = 'lorem ipsum dolor sit amet '.repeat(150);
  const read = { text: THOUGHT, calls: [{ name: 'read_file', args: { path: 'big.txt' } }], inputTokens: 0 }; // 0 = unmetered: the local count decides
  /** A repo run of five 4 KB reads (plus `tail` steps) under `ec`; the compression events and the last request. */
  const run = async (ec: string, tail: Step[] = []): Promise<{ stop: string; kinds: string[]; saved: number[]; last: LlmRequest | undefined }> => {
    const h = makeHarness({}, { config: harnessConfig(`[enhanced_commander]\n${ec}\n`) });
    writeFileSync(join(h.workspace, 'big.txt'), BIG);
    const model = new ScriptedModel({ repo: [read, read, read, read, read, ...tail, { text: THOUGHT, ...exitCall('done') }], compression: [{ text: 'sum' }] });
    const out = await runAgent(h.env(model), { agent: 'repo', role: 'repo', brief: 'read', settings: h.settings, delegationId: 'c', parentSessionId: 'p' });
    const events = h.events.flatMap((e) => (e.type.startsWith('context_') && 'beforeTokens' in e ? [e] : []));
    return { stop: out.stopReason, kinds: events.map((e) => e.type), saved: events.map((e) => e.beforeTokens - e.afterTokens), last: model.byAgent('repo').at(-1) };
  };
  const overflow: Step = { fail: 'context_length_exceeded', code: 'CONTEXT_LENGTH' };

  it('enable_context_compression and context_compression_threshold decide whether tier 1 runs', async () => {
    expect((await run('context_compression_threshold = 5500')).kinds).toContain('context_compressed');
    expect((await run('context_compression_threshold = 100000')).kinds).toEqual([]);
    expect((await run('enable_context_compression = false\ncontext_compression_threshold = 5500')).kinds).toEqual([]);
  });

  it('tool_result_keep_tokens is how much of an old result tier 1 keeps', async () => {
    // the head an old cut result keeps (its first pass keeps the setting's tokens, its hardest a quarter of them)
    const heads = async (keep: number): Promise<number[]> => {
      const r = await run(`context_compression_threshold = 5500\ntool_result_keep_tokens = ${keep}`);
      return (r.last?.messages ?? []).flatMap((m) => (m.role === 'tool' && m.content.includes(TRUNCATION_MARK) ? [m.content.indexOf(`\n${TRUNCATION_MARK}`)] : []));
    };
    const short = await heads(20);
    const long = await heads(400);
    expect(short.length).toBeGreaterThan(0);
    expect(long.length).toBeGreaterThan(0);
    expect(Math.max(...short)).toBeLessThanOrEqual(80);
    expect(Math.min(...long)).toBeGreaterThanOrEqual(400);
    expect(Math.max(...long)).toBeLessThanOrEqual(1600);
  });

  it('enable_ultimate_compression and ultimate_compression_keep_plans decide tier 3 after overflows', async () => {
    const off = await run('enable_ultimate_compression = false', [overflow, overflow, overflow]);
    expect(off.stop).toBe('llm_error');
    const one = await run('ultimate_compression_keep_plans = 1', [overflow, overflow, overflow]);
    expect(one.kinds).toEqual(['context_compressed', 'context_emergency_compressed', 'context_ultimate_compressed']);
    const all = await run('ultimate_compression_keep_plans = 0', [overflow, overflow, overflow]);
    const plans = (r: LlmRequest | undefined): number => (r?.messages[1]?.content.match(/^step \d+:$/gm) ?? []).length;
    expect(plans(one.last)).toBe(1);
    expect(plans(all.last)).toBe(5);
  });
});
