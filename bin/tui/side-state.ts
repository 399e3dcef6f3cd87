// The sidebar's state and the status line's model: the dispatcher's envelopes folded into figures (tokens, an
// estimated cost, the context bar, compressions), the latest plan (thinklink), the notes and the running actors.
import { costOf, priceFor } from '../../src/actors/llm/catalogue/prices.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { TaskOutcome, TreeNode } from '../host/types.js';
import type { SidebarData } from './view.js';

export class SideState {
  readonly data: SidebarData = { tokens: { input: 0, output: 0, cached: 0 }, cost: null, context: null, compressed: null, plan: null, activity: [], notes: [] };
  /** `provider/model` and routing tier of the Director's engine (the status line). */
  model = '';
  tier = '';
  /** The status line's "waiting …" text while a model call has had no byte for a while (llm_waiting), else ''. */
  waiting = '';
  private contextWindow = 0;
  /** Finished turns' cost (the host's estimate, [llm.prices] included) + this turn's catalogue estimate so far. */
  private spent = 0;
  private turn = 0;
  private unpriced = false;

  /** Folds one envelope in; true when something the sidebar or the status line shows changed. */
  apply(env: Envelope): boolean {
    const p = env.payload;
    switch (p.type) {
      case 'llm_waiting': {
        const was = this.waiting;
        this.waiting = p.over ? '' : `${p.agent} waiting ${Math.round(p.waitedMs / 1000)} s for ${p.phase === 'slot' ? 'a request slot' : p.provider}`;
        return this.waiting !== was;
      }
      case 'llm_retry':
      case 'ai_chunk':
        // bytes came, or the wait ended in a retry line of its own
        if (this.waiting === '') return false;
        this.waiting = '';
        return true;
      case 'model_info':
        if (env.delegationId !== null) return false;
        this.model = `${p.provider}/${p.model}`;
        this.tier = p.tier ?? '';
        this.contextWindow = p.contextWindow ?? this.contextWindow;
        return true;
      case 'llm_call_end': {
        const cleared = this.waiting !== '';
        this.waiting = '';
        if (!p.usage) return cleared;
        const t = this.data.tokens;
        t.input += p.usage.inputTokens;
        t.output += p.usage.outputTokens;
        t.cached += p.usage.cachedInputTokens;
        const price = priceFor(p.model);
        if (price) this.turn += costOf(p.usage, price);
        else this.unpriced = true;
        this.showCost();
        if (this.contextWindow > 0 && env.delegationId === null) this.data.context = { used: p.usage.inputTokens, window: this.contextWindow };
        return true;
      }
      case 'context_compressed':
      case 'context_emergency_compressed':
      case 'context_ultimate_compressed': {
        const tier = p.type === 'context_compressed' ? 1 : p.type === 'context_emergency_compressed' ? 2 : 3;
        this.data.compressed = { count: (this.data.compressed?.count ?? 0) + 1, agent: p.agent, tier, before: p.beforeTokens, after: p.afterTokens };
        return true;
      }
      case 'thinking':
        this.data.plan = { agent: p.agent, lines: planLines(p.text) };
        return true;
      case 'note_written':
        this.data.notes.push(p.ref);
        return true;
      default:
        return false;
    }
  }

  /** A turn ended: its cost is the host's estimate (with the [llm.prices] overrides) when it reported one. */
  turnEnded(outcome: TaskOutcome | null): void {
    if (outcome?.costUsd !== undefined) {
      this.turn = outcome.costUsd;
      this.unpriced = this.unpriced || (outcome.unpricedModels?.length ?? 0) > 0;
    }
    this.spent += this.turn;
    this.turn = 0;
    this.showCost();
  }

  private showCost(): void {
    this.data.cost = { usd: this.spent + this.turn, unpriced: this.unpriced };
  }

  /** The running actors of the supervision tree (nothing runs between turns); true when the list changed. */
  setActivity(tree: TreeNode | null): boolean {
    const next = tree ? activityOf(tree) : [];
    if (next.length === this.data.activity.length && next.every((a, i) => a === this.data.activity[i])) return false;
    this.data.activity = next;
    return true;
  }
}

/** A rendered thought (`renderThought`) as the plan panel shows it: the plan items, else the current step. */
function planLines(thought: string): string[] {
  const lines = thought.split('\n');
  const at = lines.indexOf('plan:');
  const items = at >= 0 ? lines.slice(at + 1).filter((l) => l.trim() !== '') : [];
  if (items.length > 0) return items;
  const step = lines.find((l) => l.startsWith('step: '));
  return step && step !== 'step: ' ? [step.slice('step: '.length)] : [];
}

/** Running actors worth showing: the Director and delegations, with their state. */
function activityOf(root: TreeNode): string[] {
  const out: string[] = [];
  const walk = (n: TreeNode): void => {
    if (/director|delegation|agent/i.test(n.name) && n.state !== 'stopped') out.push(`${n.name.replace(/^delegation:[^:]*:/, '')} ${n.paused === true ? 'paused' : n.state}`);
    n.children.forEach(walk);
  };
  walk(root);
  return out;
}
