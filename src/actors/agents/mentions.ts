// Pending @mentions: extracted by the store from note bodies, shown to the Director, consumed by a delegation.
import type { ChatMessage } from './wire-types.js';
import { MENTIONS_HEADER } from './transient.js';

export interface Mention {
  /** The mentioned agent. */
  agent: string;
  /** The note that mentions it (becomes `triggered_by` of the answer). */
  ref: string;
  /** The agent whose note it is. */
  by: string;
}

export class MentionBook {
  private readonly pending: Mention[] = [];

  add(m: Mention): void {
    if (!this.pending.some((p) => p.agent === m.agent && p.ref === m.ref)) this.pending.push(m);
  }

  list(): readonly Mention[] {
    return this.pending;
  }

  /** A delegation to `agent` that carries a mentioning note in context_refs answers that mention. */
  consume(agent: string, refs: readonly string[]): string | undefined {
    const i = this.pending.findIndex((p) => p.agent === agent && refs.includes(p.ref));
    if (i < 0) return undefined;
    const [m] = this.pending.splice(i, 1);
    return m.ref;
  }

  /** The transient message the Director reads; null when nothing is pending. */
  message(): ChatMessage | null {
    if (this.pending.length === 0) return null;
    const lines = this.pending.map((p) => `- @${p.agent} ← note ${p.ref} (by ${p.by})`);
    return {
      role: 'user',
      content: [
        MENTIONS_HEADER,
        'Notes on the board ask for these agents. You decide: to follow one, delegate to that agent with the note ref in context_refs; otherwise ignore it.',
        ...lines,
      ].join('\n'),
    };
  }
}
