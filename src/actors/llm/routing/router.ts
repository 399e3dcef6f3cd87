// The routing engine wrapping every agent's engine: runtime override > routing tier > use_provider.
import type { Clock } from '../../../runtime/actor.js';
import type { Event } from '../../../runtime/protocol/index.js';
import type { Tier, YagentConfig } from '../../../runtime/config/index.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';
import { modelLimits } from '../catalogue/catalogue.js';
import type { WindowInfo } from '../window/context-window.js';
import { classify } from './classifier.js';

export interface RoutingDeps {
  publish(e: Event): void;
  clock: Clock;
  /** Builds (reliability-wrapped) engines by provider name; results are cached by the router. */
  engineFor(provider: string): LlmEngine;
  /** The provider's configured `context_window` (the window when nothing better is known). */
  contextWindowOf?(provider: string): number | undefined;
  /** The provider's window as the run will use it: config, the server's own word, the catalogue (window/). */
  windowOf?(provider: string): Promise<WindowInfo>;
  /** The compression threshold for a model and window (catalogue `compressionThreshold` with the run's config). */
  thresholdOf?(model: string, window: number | undefined): number;
}

/** The engine key of a provider with another model than its configured one (`deps.engineFor` splits it). */
export function overrideKey(provider: string, model?: string): string {
  return model === undefined || model === '' ? provider : `${provider}\u0000${model}`;
}

/** The provider and model an engine key names (`overrideKey`'s inverse). */
export function splitKey(key: string): { provider: string; model?: string } {
  const at = key.indexOf('\u0000');
  return at < 0 ? { provider: key } : { provider: key.slice(0, at), model: key.slice(at + 1) };
}

export class RoutingEngine implements LlmEngine {
  private override: string | null = null;
  private mode: 'auto' | 'fixed';
  private readonly engines = new Map<string, LlmEngine>();
  private decided: { key: string; tier: Tier; provider: string } | null = null;
  private announced: string | null = null;
  /** Per provider: its window, asked once (a server's overflow answer replaces it: `learnWindow`). */
  private readonly windows = new Map<string, Promise<WindowInfo>>();
  /** Providers whose window needs no second question (recheckWindow has nothing to do for them). */
  private readonly windowSettled = new Set<string>();

  constructor(
    private readonly routing: YagentConfig['routing'],
    readonly agent: string,
    private readonly baseProvider: string,
    private readonly deps: RoutingDeps,
  ) {
    this.mode = routing.mode;
  }

  /** Runtime model switch (TUI `/model`, also mid-run): wins over routing; `model` replaces the provider's configured
   *  model; null returns to routing. The wrapper stays. Throws (nothing changed) for a provider it cannot build. */
  setOverride(provider: string | null, model?: string): void {
    const key = provider === null ? null : overrideKey(provider, model);
    if (key !== null) this.engine(key);
    this.override = key;
  }
  setMode(mode: 'auto' | 'fixed'): void {
    this.mode = mode;
    this.decided = null;
  }

  describe(): { provider: string; model: string } {
    return this.engine(this.current()).describe();
  }

  async call(req: LlmRequest): Promise<LlmResponse> {
    // the steady state (a fixed provider, announced, its window settled) awaits nothing but the call itself
    const { provider, tier } = this.fixedChoice() ?? (await this.choose(req));
    const engine = this.engine(provider);
    const sent = tier !== undefined ? { ...req, tier } : req;
    if (this.announced === announceKey(engine)) {
      const res = await engine.call(sent);
      if (!this.windowSettled.has(provider)) await this.recheckWindow(provider);
      return res;
    }
    // model_info waits for the window (a local server is asked over HTTP); the request does not (issue 29): the probe
    // starts on the next timer turn (the request's send path runs first) or once the answer is on the wire, and the
    // call returns only once model_info is out (announce never rejects: window() falls back)
    let wired!: () => void;
    const onWire = new Promise<void>((r) => (wired = r));
    const outer = req.onWire;
    const pending = engine.call({ ...sent, onWire: () => (wired(), outer?.()) });
    let turn: { cancel(): void } | undefined;
    const nextTurn = new Promise<void>((r) => (turn = this.deps.clock.setTimeout(r, 0)));
    const said = Promise.race([onWire, nextTurn, pending.then(noop, noop)]).then(() => (turn?.cancel(), this.announce(provider, engine, tier)));
    let res: LlmResponse;
    try {
      res = await pending;
    } finally {
      await said;
    }
    if (!this.windowSettled.has(provider)) await this.recheckWindow(provider);
    return res;
  }

  private fixedChoice(): { provider: string; tier?: Tier } | null {
    if (this.override !== null) return { provider: this.override };
    if (this.mode === 'fixed' || !canRoute(this.routing.tiers, this.baseProvider)) return { provider: this.baseProvider };
    return null;
  }

  /** A server that sizes its window when it loads the model (Ollama) is asked once more after its first answer. */
  private async recheckWindow(name: string): Promise<void> {
    const known = this.windows.get(name);
    if (known === undefined || this.deps.windowOf === undefined || (await known).recheck !== true) return;
    const again = await this.deps.windowOf(name).catch(() => undefined);
    const settled: WindowInfo = again?.tokens !== undefined ? again : { ...(await known), recheck: false };
    this.windows.set(name, Promise.resolve(settled));
    if (settled.recheck !== true) this.windowSettled.add(name);
    if (again?.tokens !== undefined) this.announced = null;
  }

  /** The window of the provider the next call goes to (asked of the server once per provider). */
  window(name = this.current()): Promise<WindowInfo> {
    let w = this.windows.get(name);
    if (w === undefined) {
      const configured = this.deps.contextWindowOf?.(name);
      const fallback = (): WindowInfo => {
        const tokens = configured ?? modelLimits(this.engine(name).describe().model)?.context;
        return tokens !== undefined ? { tokens, source: configured !== undefined ? 'context_window in the config' : 'model catalogue' } : { source: 'unknown (set context_window)' };
      };
      w = this.deps.windowOf ? this.deps.windowOf(name).catch(fallback) : Promise.resolve(fallback());
      this.windows.set(name, w);
      const asked = w;
      asked.then(
        (info) => {
          // a later learnWindow replaced it: that one is settled already
          if (this.windows.get(name) === asked && info.recheck !== true) this.windowSettled.add(name);
        },
        () => undefined, // the caller of window() hears of it
      );
    }
    return w;
  }

  /** The server's overflow answer named its window: it replaces what was known, and model_info says it again. */
  learnWindow(tokens: number): void {
    this.windows.set(this.current(), Promise.resolve({ tokens, source: "the server's overflow answer" }));
    this.windowSettled.add(this.current());
    this.announced = null;
  }

  private current(): string {
    return this.override ?? this.decided?.provider ?? this.baseProvider;
  }

  /** The routed choice (fixedChoice answered null). */
  private async choose(req: LlmRequest): Promise<{ provider: string; tier?: Tier }> {
    const provider = await this.route(req);
    return this.decided !== null ? { provider, tier: this.decided.tier } : { provider };
  }

  /** model_info at the first call and whenever the provider/model (or the learned window) changes. */
  private async announce(name: string, engine: LlmEngine, tier: Tier | undefined): Promise<void> {
    const { provider, model } = engine.describe();
    const key = announceKey(engine);
    if (this.announced === key) return;
    this.announced = key;
    const info = await this.window(name);
    const context = info.tokens;
    const threshold = this.deps.thresholdOf?.(model, info.tokens);
    this.deps.publish({
      type: 'model_info',
      agent: this.agent,
      provider,
      model,
      ...(tier !== undefined ? { tier } : {}),
      ...(context !== undefined ? { contextWindow: context } : {}),
      windowSource: info.source,
      ...(threshold !== undefined ? { compressionThreshold: threshold } : {}),
    });
    // a window nobody can know that will cost the user their context (Ollama's silent cut): said once, as a warning
    if (info.note !== undefined) this.deps.publish({ type: 'log', level: 'warn', message: `${this.agent} · ${provider}: context window unknown: ${info.note}` });
  }

  private engine(provider: string): LlmEngine {
    let e = this.engines.get(provider);
    if (e === undefined) {
      e = this.deps.engineFor(provider);
      this.engines.set(provider, e);
    }
    return e;
  }

  /** One decision per user turn (keyed by the latest user message), reused by the turn's later steps. */
  private async route(req: LlmRequest): Promise<string> {
    const users = req.messages.filter((m) => m.role === 'user');
    const last = users[users.length - 1];
    const key = `${users.length}\u0000${last?.content ?? ''}`;
    if (this.decided?.key === key) return this.decided.provider;
    const classifier = this.engine(this.routing.tiers.fast ?? this.baseProvider);
    const res = await classify(classifier, last?.content ?? '', {
      agent: this.agent,
      timeoutMs: this.routing.classifierTimeoutMs,
      clock: this.deps.clock,
      signal: req.signal,
      onUsage: req.onUsage,
    });
    const tier: Tier = 'tier' in res ? res.tier : (this.routing.baselines[this.agent] ?? 'balanced');
    const provider = this.routing.tiers[tier] ?? this.baseProvider;
    const reason = 'tier' in res ? 'classified' : `baseline (${res.error})`;
    this.decided = { key, tier, provider };
    this.deps.publish({ type: 'model_routed', agent: this.agent, tier, provider, reason });
    return provider;
  }
}

const noop = (): void => undefined;

/** What model_info was last said for: the provider and model an engine sends to. */
function announceKey(engine: LlmEngine): string {
  const { provider, model } = engine.describe();
  return `${provider}\u0000${model}`;
}

/** Routing can change the provider only when the tiers resolve to two or more distinct providers. */
export function canRoute(tiers: Partial<Record<Tier, string>>, baseProvider: string): boolean {
  const choices = new Set((['fast', 'balanced', 'high'] as const).map((t) => tiers[t] ?? baseProvider));
  return choices.size >= 2;
}
