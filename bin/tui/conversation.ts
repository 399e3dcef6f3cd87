// The conversation stream: user turns and each agent's streamed text/tool calls, keyed by `agent#delegationId`.
// A delegation's entries are folded under its `→ agent: task` line (inserted after the last entry of its subtree),
// so parallel delegations — of the same agent too — never interleave; the display name stays the bare agent.
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { ThoughtFilter, withoutThought } from './thought-filter.js';

export type EntryKind = 'user' | 'queued' | 'text' | 'tool' | 'delegation' | 'info' | 'error';

export interface Entry {
  kind: EntryKind;
  /** Display name (the bare agent name); the slot key is never shown (seeds pitfall 34). */
  agent: string;
  /** The stream slot (`agent#delegationId`) the entry belongs to: an agent header opens when the slot changes. */
  slot: string;
  /** 0 = Director / user, 1+ = inside a delegation (nested ones deeper). */
  depth: number;
  text: string;
}

/** The stream slot key: parallel delegations of the same agent never share a slot. */
export function slotKey(env: Envelope): string {
  const agent = 'agent' in env.payload ? env.payload.agent : env.source;
  return `${agent}#${env.delegationId ?? ''}`;
}

interface Slot {
  entry: Entry;
  filter: ThoughtFilter;
}

export class Conversation {
  readonly entries: Entry[] = [];
  /** Open text slot per key; a slot closes at ai_stream_end so the next step starts a new entry. */
  private readonly open = new Map<string, Slot>();
  /** The slot a step's stream just closed: its ai_response (published after ai_stream_end) lands there. */
  private readonly closed = new Map<string, Entry>();
  /** Each slot's latest text entry: a step that only talked (no tool call in between) is superseded by the next one. */
  private readonly lastText = new Map<string, Entry>();
  /** Entry → the delegation it belongs to (null = the Director's level); delegation → its parent and its line. */
  private readonly groupOf = new WeakMap<Entry, string | null>();
  private readonly parentOf = new Map<string, string | null>();
  private readonly openerOf = new Map<string, Entry>();
  /** Slots whose step started streaming and has shown no text yet. */
  private readonly unshown = new Set<string>();
  /** The last apply() showed a step's first text (the app paints it at once instead of at the next frame slot). */
  firstText = false;
  /** With `firstText`: the entry that text went into (that frame renders it; other grown entries may wait). */
  firstEntry: Entry | null = null;

  addUser(text: string): void {
    this.entries.push({ kind: 'user', agent: 'you', slot: 'you', depth: 0, text });
  }

  /** A message typed while the task works: shown as queued until the Director takes it (`user_message`). */
  addQueued(text: string): void {
    this.entries.push({ kind: 'queued', agent: 'you', slot: 'you', depth: 0, text });
  }

  /** A queued message leaves the queue: taken by the Director (it becomes a user turn where the Director is now),
   *  or taken back when the turn ended (`asUser` false: the caller sends or restores it). */
  unqueue(text: string, asUser: boolean): void {
    const i = this.entries.findIndex((e) => e.kind === 'queued' && e.text === text);
    if (i >= 0) this.entries.splice(i, 1);
    if (asUser) this.addUser(text);
  }

  /** Removes the queued messages still shown; returns how many there were. */
  dropQueued(): number {
    const before = this.entries.length;
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i]?.kind === 'queued') this.entries.splice(i, 1);
    return before - this.entries.length;
  }

  addInfo(text: string, kind: 'info' | 'error' = 'info'): void {
    this.entries.push({ kind, agent: '', slot: '', depth: 0, text });
  }

  clear(): void {
    this.entries.length = 0;
    this.open.clear();
    this.closed.clear();
    this.lastText.clear();
    this.unshown.clear();
  }

  /** Folds one envelope in; returns true when something visible changed. */
  apply(env: Envelope): boolean {
    const p = env.payload;
    const key = slotKey(env);
    this.firstText = false;
    this.firstEntry = null;
    const group = env.delegationId;
    const agent = 'agent' in p ? p.agent : env.source;
    const line = (kind: EntryKind, text: string): true => (this.insert({ kind, agent, slot: key, depth: this.depth(group), text }, group), true);
    switch (p.type) {
      case 'ai_stream_start':
        this.open.delete(key);
        this.closed.delete(key);
        this.unshown.add(key);
        return false;
      case 'ai_chunk': {
        const s = this.slot(key, agent, group);
        if (!s.filter.push(p.text)) return false;
        s.entry.text = s.filter.text;
        this.firstText = this.unshown.delete(key);
        if (this.firstText) this.firstEntry = s.entry;
        return true;
      }
      case 'ai_response': {
        // the streamed chunks and the final text are one answer: replace, never append a second copy
        const text = withoutThought(p.text);
        const e = this.open.get(key)?.entry ?? this.closed.get(key);
        if (e) e.text = text;
        else if (text.trim() !== '') this.slot(key, agent, group).entry.text = text;
        this.open.delete(key);
        this.closed.delete(key);
        return true;
      }
      case 'ai_stream_end': {
        const s = this.open.get(key);
        if (s) this.closed.set(key, s.entry);
        this.open.delete(key);
        return false;
      }
      case 'tool_call_start':
        // a delegation shows as its own line (delegation_start), with its work folded under it
        if (p.name.startsWith('delegate_')) return false;
        return line('tool', `⚙ ${p.name} ${p.brief}`.trimEnd());
      case 'tool_call_result':
        return !p.ok && line('error', `✗ ${p.name}: ${firstLine(p.display)}`);
      case 'delegation_start': {
        this.parentOf.set(p.callId, group);
        const opener: Entry = { kind: 'delegation', agent, slot: key, depth: this.depth(group), text: `→ ${p.child}: ${firstLine(p.task)}` };
        this.openerOf.set(p.callId, opener);
        this.insert(opener, group);
        return true;
      }
      case 'delegation_end': {
        const opener = this.openerOf.get(p.callId);
        if (!opener) return line('delegation', `← ${p.child} ${p.status}`);
        opener.text = `${opener.text} — ${p.status}`;
        return true;
      }
      case 'delegation_worktree': {
        // a parallel writer (issue 26): its line names its worktree; a conflict is said where the user looks
        const opener = this.openerOf.get(p.callId);
        if (p.merged === undefined) return opener !== undefined && ((opener.text = `${opener.text} ⎇ ${p.branch}`), true);
        return p.merged === 'conflict' && line('error', `✗ ${p.child}: merge conflict in ${(p.files ?? []).join(', ')}; its changes are kept on ${p.branch}`);
      }
      case 'user_help_response':
        this.entries.push({ kind: 'info', agent: '', slot: '', depth: 0, text: `${p.approved ? '✓ approved' : '✗ denied'} (${p.scope})` });
        return true;
      case 'user_help_withdrawn':
        this.entries.push({ kind: 'info', agent: '', slot: '', depth: 0, text: `· request withdrawn: ${firstLine(p.reason)}` });
        return true;
      case 'message_queued':
        // another client's message (`attach send`, a second TUI); this one's own is shown queued already
        if (!this.entries.some((e) => e.kind === 'queued' && e.text === p.text)) this.addQueued(p.text);
        return true;
      case 'user_message':
        this.unqueue(p.text, true);
        return true;
      case 'model_switched':
        this.addInfo(p.error !== undefined ? `model switch refused: ${p.error}` : `model switched to ${p.provider === null ? 'routing' : `${p.provider}${p.model ? ` ${p.model}` : ''}`} from this step`, p.error !== undefined ? 'error' : 'info');
        return true;
      case 'conversation_error':
        return line('error', `${agent}: ${p.error.message}`);
      case 'task_end':
        this.open.clear();
        if (p.stopReason !== 'plain_text' && p.stopReason !== 'agent_exit') this.addInfo(`— task ended: ${p.stopReason}`, p.stopReason === 'cancelled' ? 'info' : 'error');
        return true;
      default:
        return false;
    }
  }

  private depth(group: string | null): number {
    let d = 0;
    for (let g = group; g !== null && d < 8; g = this.parentOf.get(g) ?? null) d++;
    return d;
  }

  /** Whether delegation `group` is `root` or nested inside it (null, the Director's level, is inside none). */
  inside(group: string | null, root: string): boolean {
    for (let g = group, n = 0; g !== null && n < 16; g = this.parentOf.get(g) ?? null, n++) if (g === root) return true;
    return false;
  }

  /** Where an entry of `group` goes: after the last entry of the group's subtree (or its `→` line); the Director's
   *  level and a delegation whose line was never seen (attached mid-run) append. */
  private position(group: string | null): number {
    if (group === null || !this.openerOf.has(group)) return this.entries.length;
    const opener = this.openerOf.get(group);
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i] as Entry;
      if (e === opener || this.inside(this.groupOf.get(e) ?? null, group)) return i + 1;
    }
    return this.entries.length;
  }

  private insert(e: Entry, group: string | null, at = this.position(group)): void {
    this.groupOf.set(e, group);
    this.entries.splice(at, 0, e);
  }

  private slot(key: string, agent: string, group: string | null): Slot {
    let s = this.open.get(key);
    if (!s) {
      const at = this.position(group);
      const last = this.lastText.get(key);
      // the slot's previous step only talked (it is still the last of its group): its text is superseded — a
      // reminder asked for the final answer again — so the new step streams into the same entry
      const entry: Entry = last !== undefined && this.entries[at - 1] === last ? last : { kind: 'text', agent, slot: key, depth: this.depth(group), text: '' };
      // (its old text stays until the new step says something visible)
      if (entry !== last) this.insert(entry, group, at);
      s = { entry, filter: new ThoughtFilter() };
      this.open.set(key, s);
      this.lastText.set(key, entry);
    }
    return s;
  }
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0] ?? '';
}
