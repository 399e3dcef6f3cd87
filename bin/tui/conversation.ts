// The conversation stream: user turns and each agent's streamed text/tool calls, keyed by `agent#delegationId`.
import type { Envelope } from '../../src/runtime/protocol/index.js';

export type EntryKind = 'user' | 'text' | 'tool' | 'delegation' | 'info' | 'error';

export interface Entry {
  kind: EntryKind;
  /** Display name (the bare agent name); the slot key is never shown (seeds pitfall 34). */
  agent: string;
  /** 0 = Director / user, 1+ = inside a delegation. */
  depth: number;
  text: string;
}

/** The stream slot key: parallel delegations of the same agent never share a slot. */
export function slotKey(env: Envelope): string {
  const agent = 'agent' in env.payload ? env.payload.agent : env.source;
  return `${agent}#${env.delegationId ?? ''}`;
}

export class Conversation {
  readonly entries: Entry[] = [];
  /** Open text slot per key; a slot closes at ai_stream_end so the next step starts a new entry. */
  private readonly open = new Map<string, Entry>();
  /** The slot a step's stream just closed: its ai_response (published after ai_stream_end) lands there. */
  private readonly closed = new Map<string, Entry>();
  private readonly depthOf = new Map<string, number>();

  addUser(text: string): void {
    this.entries.push({ kind: 'user', agent: 'you', depth: 0, text });
  }

  addInfo(text: string, kind: 'info' | 'error' = 'info'): void {
    this.entries.push({ kind, agent: '', depth: 0, text });
  }

  clear(): void {
    this.entries.length = 0;
    this.open.clear();
    this.closed.clear();
  }

  /** Folds one envelope in; returns true when something visible changed. */
  apply(env: Envelope): boolean {
    const p = env.payload;
    const key = slotKey(env);
    const depth = env.delegationId === null ? 0 : (this.depthOf.get(env.delegationId) ?? 1);
    const agent = 'agent' in p ? p.agent : env.source;
    switch (p.type) {
      case 'ai_stream_start':
        this.open.delete(key);
        this.closed.delete(key);
        return false;
      case 'ai_chunk':
        this.slot(key, agent, depth).text += p.text;
        return true;
      case 'ai_response': {
        // the streamed chunks and the final text are one answer: replace, never append a second copy
        const s = this.open.get(key) ?? this.closed.get(key);
        if (s) s.text = p.text;
        else if (p.text.trim() !== '') this.slot(key, agent, depth).text = p.text;
        this.open.delete(key);
        this.closed.delete(key);
        return true;
      }
      case 'ai_stream_end': {
        const s = this.open.get(key);
        if (s) this.closed.set(key, s);
        this.open.delete(key);
        return false;
      }
      case 'tool_call_start':
        this.entries.push({ kind: 'tool', agent, depth, text: `⚙ ${p.name} ${p.brief}`.trimEnd() });
        return true;
      case 'tool_call_result':
        if (!p.ok) this.entries.push({ kind: 'error', agent, depth, text: `✗ ${p.name}: ${firstLine(p.display)}` });
        return !p.ok;
      case 'delegation_start':
        this.entries.push({ kind: 'delegation', agent, depth, text: `→ ${p.child}: ${firstLine(p.task)}` });
        return true;
      case 'delegation_end':
        this.entries.push({ kind: 'delegation', agent, depth, text: `← ${p.child} ${p.status}` });
        return true;
      case 'user_help_response':
        this.entries.push({ kind: 'info', agent: '', depth: 0, text: `${p.approved ? '✓ approved' : '✗ denied'} (${p.scope})` });
        return true;
      case 'conversation_error':
        this.entries.push({ kind: 'error', agent, depth, text: `${agent}: ${p.error.message}` });
        return true;
      case 'task_end':
        this.open.clear();
        if (p.stopReason !== 'plain_text' && p.stopReason !== 'agent_exit') this.addInfo(`— task ended: ${p.stopReason}`, p.stopReason === 'cancelled' ? 'info' : 'error');
        return true;
      default:
        this.trackDepth(env);
        return false;
    }
  }

  private trackDepth(env: Envelope): void {
    // a delegation's first event names its id; nest it one deeper than its publisher's parent chain
    if (env.delegationId !== null && !this.depthOf.has(env.delegationId)) this.depthOf.set(env.delegationId, 1);
  }

  private slot(key: string, agent: string, depth: number): Entry {
    let s = this.open.get(key);
    if (!s) {
      s = { kind: 'text', agent, depth, text: '' };
      this.entries.push(s);
      this.open.set(key, s);
    }
    return s;
  }
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0] ?? '';
}
