// The thinklink store: every valid <thought> plan of this run, in order. Tier 2 moves plans here out of the
// history; tier 3 rebuilds from it. Each entry also goes to the rollout (event_msg thinklink_entry).
import type { RolloutRecordLike } from '../port-types.js';
import { renderThought, type Thought } from '../thought.js';

export const THINKLINK_KIND = 'thinklink_entry';

export interface ThinkEntry {
  step: number;
  text: string;
}

/** The rollout's `event_msg thinklink_entry` line for an entry, and back (resume restores the store from it). */
export function thinklinkRecord(e: ThinkEntry, ts: number): RolloutRecordLike {
  return { type: 'event_msg', ts, payload: { kind: THINKLINK_KIND, detail: `step ${e.step}\n${e.text}` } };
}

export function thinklinkFromRecords(records: readonly RolloutRecordLike[]): ThinkEntry[] {
  return records.flatMap((r) => {
    if (r.type !== 'event_msg' || r.payload.kind !== THINKLINK_KIND) return [];
    const m = /^step (\d+)\n([\s\S]*)$/.exec(r.payload.detail ?? '');
    return m ? [{ step: Number(m[1]), text: m[2] ?? '' }] : [];
  });
}

export class ThinkLink {
  private readonly entries: ThinkEntry[];

  /** `restored`: entries read back from a rollout (resume). */
  constructor(restored: readonly ThinkEntry[] = []) {
    this.entries = [...restored];
  }

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
