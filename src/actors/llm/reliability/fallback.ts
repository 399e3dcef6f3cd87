// Weighted fallback providers: when the primary gives up, try the others in weighted order, one event per switch.
import type { Event } from '../../../runtime/protocol/index.js';
import { LlmError } from '../errors.js';
import type { LlmEngine, LlmRequest, LlmResponse } from '../types.js';

export interface WeightedEngine {
  provider: string;
  weight: number;
  engine: LlmEngine;
}

/** Weighted random order without replacement (rng injectable so tests are deterministic). */
export function weightedOrder<T extends { weight: number }>(items: readonly T[], rng: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((s, x) => s + Math.max(0, x.weight), 0);
    let r = rng() * total;
    let idx = pool.length - 1;
    for (let i = 0; i < pool.length; i++) {
      r -= Math.max(0, pool[i]?.weight ?? 0);
      if (r < 0) {
        idx = i;
        break;
      }
    }
    out.push(...pool.splice(idx, 1));
  }
  return out;
}

export class FallbackEngine implements LlmEngine {
  constructor(
    private readonly primary: LlmEngine,
    private readonly fallbacks: readonly WeightedEngine[],
    private readonly publish: (e: Event) => void,
    private readonly rng: () => number = Math.random,
  ) {}

  describe(): { provider: string; model: string } {
    return this.primary.describe();
  }

  async call(req: LlmRequest): Promise<LlmResponse> {
    try {
      return await this.primary.call(req);
    } catch (first) {
      if (!switchable(first) || this.fallbacks.length === 0) throw first;
      let from = this.primary.describe().provider;
      let last: unknown = first;
      for (const fb of weightedOrder(this.fallbacks, this.rng)) {
        req.signal.throwIfAborted();
        // the first line: a given-up error is three lines (what / where / fix), the event needs the what
        const reason = (last instanceof Error ? last.message : String(last)).split('\n')[0] ?? '';
        this.publish({ type: 'provider_fallback', agent: req.agent, from, to: fb.provider, reason });
        try {
          return await fb.engine.call(req);
        } catch (e) {
          if (!switchable(e)) throw e;
          last = e;
          from = fb.provider;
        }
      }
      throw last;
    }
  }
}

/** A cancel or a request the provider rejected as malformed would fail the same way elsewhere. */
function switchable(e: unknown): boolean {
  return !(e instanceof LlmError) || (e.code !== 'CANCELLED' && e.code !== 'BAD_REQUEST');
}
