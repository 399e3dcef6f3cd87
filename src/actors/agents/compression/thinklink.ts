// The thinklink store: every valid <thought> plan of this run, in order. Tier 2 moves plans here out of the
// history; tier 3 rebuilds from it. Each entry also goes to the rollout (event_msg thinklink_entry).
import { renderThought, type Thought } from '../thought.js';

export interface ThinkEntry {
  step: number;
  text: string;
}

export class ThinkLink {
  private readonly entries: ThinkEntry[] = [];

  add(step: number, t: Thought): ThinkEntry {
    const e = { step, text: renderThought(t) };
    this.entries.push(e);
    return e;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The last `keep` plans (0 = all). */
  last(keep: number): readonly ThinkEntry[] {
    return keep > 0 ? this.entries.slice(-keep) : [...this.entries];
  }
}
