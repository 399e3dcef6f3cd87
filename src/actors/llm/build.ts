// The one way to build an agent's engine: raw SDK engine → reliability → fallback → routing wrapper.
import type { Clock } from '../../runtime/actor.js';
import { realClock } from '../../runtime/clock.js';
import type { Event } from '../../runtime/protocol/index.js';
import {
  createSharedLlmState,
  LLM_SHARED_KEY,
  resolveProvider,
  resolveProviderName,
  ConfigError,
  type ProviderConfig,
  type YagentConfig,
} from '../../runtime/config/index.js';
import { AnthropicEngine } from './engines/anthropic.js';
import { OpenAiEngine } from './engines/openai.js';
import { CircuitBreaker } from './reliability/breaker.js';
import { FallbackEngine } from './reliability/fallback.js';
import { InFlightGate } from './reliability/gate.js';
import { ReliableEngine, type Sleep } from './reliability/reliable.js';
import { RoutingEngine, splitKey } from './routing/router.js';
import { compressionThreshold } from './catalogue/catalogue.js';
import { httpFetch } from './transport/http-fetch.js';
import { resolveWindow } from './window/context-window.js';
import type { LlmEngine } from './types.js';

export interface EngineDeps {
  publish(e: Event): void;
  /** ctx.shared of the actor: the process-wide gate and breakers live in shared[LLM_SHARED_KEY]. */
  shared?: Readonly<Record<string, SharedArrayBuffer>>;
  clock?: Clock;
  sleep?: Sleep;
  fetch?: typeof fetch;
  /** The fetch model calls go through (not the window probes); default `fetch`. The Director's claims the answer of
   *  its first request when the main thread pre-sent it (transport/presend.ts). */
  modelFetch?: typeof fetch;
  rng?: () => number;
}

/** Without a runtime-provided buffer (tests, one-shot tools) the state is shared by this thread only. */
const localStates = new Map<number, SharedArrayBuffer>();
function sharedState(cfg: YagentConfig, deps: EngineDeps): SharedArrayBuffer {
  const given = deps.shared?.[LLM_SHARED_KEY];
  if (given !== undefined) return given;
  const limit = cfg.llm.maxInFlightRequests;
  let s = localStates.get(limit);
  if (s === undefined) {
    s = createSharedLlmState({ maxInFlightRequests: limit });
    localStates.set(limit, s);
  }
  return s;
}

export function rawEngine(p: ProviderConfig, deps: Pick<EngineDeps, 'fetch' | 'modelFetch'>, maxAnswerChars?: number): LlmEngine {
  const f = deps.modelFetch ?? deps.fetch;
  const opts = { ...(f !== undefined ? { fetch: f } : {}), ...(maxAnswerChars !== undefined ? { maxAnswerChars } : {}) };
  switch (p.apiFormat) {
    case 'openai':
      return new OpenAiEngine(p, opts);
    case 'anthropic':
      return new AnthropicEngine(p, opts);
  }
}

function reliable(cfg: YagentConfig, p: ProviderConfig, retries: number, deps: EngineDeps, sab: SharedArrayBuffer): LlmEngine {
  const clock = deps.clock ?? realClock;
  const breaker =
    cfg.llm.circuitBreakerThreshold > 0
      ? new CircuitBreaker(sab, p.name, cfg.llm.circuitBreakerThreshold, cfg.llm.circuitBreakerCooldownMs, () => clock.now())
      : null;
  return new ReliableEngine(
    rawEngine(p, deps, cfg.llm.maxAnswerChars),
    { maxRetries: retries, timeoutMs: cfg.llm.timeoutMs, callBudgetMs: cfg.llm.callBudgetMs, idleTimeoutMs: cfg.llm.streamIdleTimeoutMs },
    {
      clock,
      gate: new InFlightGate(sab),
      breaker,
      publish: (e) => deps.publish(e),
      target: { provider: p.name, model: p.model, url: p.apiBaseUrl, keyEnv: p.apiKeyEnv },
      ...(deps.sleep !== undefined ? { sleep: deps.sleep } : {}),
      ...(deps.rng !== undefined ? { random: deps.rng } : {}),
    },
  );
}

function provider(cfg: YagentConfig, name: string): ProviderConfig {
  const p = cfg.providers[name];
  if (p === undefined) throw new ConfigError(`provider "${name}" is not defined`, cfg.path, `add [global.llm.providers.${name}]`);
  return p;
}

/** A provider's engine with retries, gate, breaker and (when enabled) its weighted fallbacks. */
export function buildProviderEngine(cfg: YagentConfig, name: string, deps: EngineDeps): LlmEngine {
  const sab = sharedState(cfg, deps);
  const p = provider(cfg, name);
  const primary = reliable(cfg, p, cfg.llm.maxRetries, deps, sab);
  if (!cfg.llm.enableFallback || p.fallbackProviders.length === 0) return primary;
  const fallbacks = p.fallbackProviders
    .filter((f) => f.provider !== name)
    .map((f) => ({ provider: f.provider, weight: f.weight, engine: reliable(cfg, provider(cfg, f.provider), cfg.llm.fallbackMaxRetries, deps, sab) }));
  return new FallbackEngine(primary, fallbacks, (e) => deps.publish(e), deps.rng ?? Math.random);
}

/** Every agent engine is a RoutingEngine; there is no other exported way to build one for an agent. */
export function buildAgentEngine(cfg: YagentConfig, agent: string, deps: EngineDeps): RoutingEngine {
  const base = resolveProviderName(cfg, { agent });
  resolveProvider(cfg, { agent });
  return new RoutingEngine(cfg.routing, agent, base, {
    publish: (e) => deps.publish(e),
    clock: deps.clock ?? realClock,
    engineFor: (key) => {
      // `/model provider model`: the provider's engine with the model the server listed instead of the configured one
      const { provider: name, model } = splitKey(key);
      const p = cfg.providers[name];
      if (model === undefined || p === undefined) return buildProviderEngine(cfg, name, deps);
      return buildProviderEngine({ ...cfg, providers: { ...cfg.providers, [name]: { ...p, model } } }, name, deps);
    },
    // a switched model's window is the catalogue's (the configured context_window belongs to the configured model)
    contextWindowOf: (key) => (splitKey(key).model === undefined ? cfg.providers[key]?.contextWindow : undefined),
    windowOf: (key) => resolveWindow(provider(cfg, splitKey(key).provider), deps.fetch ?? httpFetch),
    thresholdOf: (model, window) => compressionThreshold(cfg, model, window),
  });
}

/** Tools with their own model (compression's summary) resolve tool → tools.llm → agent → … . */
export function buildToolEngine(cfg: YagentConfig, tool: string, agent: string | undefined, deps: EngineDeps): LlmEngine {
  return buildProviderEngine(cfg, resolveProviderName(cfg, { tool, agent }), deps);
}
