// The thinklink store: every valid <thought> plan of this run, in order. Tier 2 moves plans here out of the
// history; tier 3 rebuilds from it. Each entry also goes to the rollout (event_msg thinklink_entry), and a
// resumed run (session follow-up, continued delegation) starts from the entries its rollout holds.
import { THINKLINK_KIND } from '../../../store/api.js';
import type { RolloutRecordLike } from '../wire-types.js';
import { renderThought, type Thought } from '../thought.js';

export interface ThinkEntry {
  step: number;
  text: string;
}

/** The rollout's `event_msg thinklink_entry` line for an entry, and back (resume restores the store from it). */
export function thinklinkRecord(e: ThinkEntry, ts: number): RolloutRecordLike {
  return { type: 'event_msg', ts, payload: { kind: THINKLINK_KIND, detail: `step ${e.step}\n${e.text}` } };
}

/** Entries from the records' details (`ReplayResult.thinklink`); a malformed detail is skipped. */
export function thinklinkFromDetails(details: readonly string[]): ThinkEntry[] {
  return details.flatMap((d) => {
    const m = /^step (\d+)\n([\s\S]*)$/.exec(d);
    return m ? [{ step: Number(m[1]), text: m[2] ?? '' }] : [];
  });
}

export function thinklinkFromRecords(records: readonly RolloutRecordLike[]): ThinkEntry[] {
  return thinklinkFromDetails(records.flatMap((r) => (r.type === 'event_msg' && r.payload.kind === THINKLINK_KIND ? [r.payload.detail ?? ''] : [])));
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
