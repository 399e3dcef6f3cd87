// The session ledger: one append-only JSONL file per session (turn starts and ends), folded into summaries.
// Not a second source of truth for resume: the rollouts are; this only says which turns a session had.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { StopReasonSchema, UsageSchema } from '../runtime/protocol/index.js';
import { rolloutDir, sanitizeSegment } from './data-paths.js';
import { readHead } from './rollout/heads.js';
import { readRolloutUsage } from './rollout/usage.js';
import type { SessionEntry, SessionSummary } from './types-session.js';
import { isMissing } from './errors.js';

export const sessionsDir = (root: string, projectId: string): string => join(root, 'data', 'sessions', sanitizeSegment(projectId, 128, 'unknown'));

const EntrySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('turn_start'), ts: z.number(), taskId: z.string(), prompt: z.string(), workspace: z.string(), forkedFrom: z.string().optional(), forkedTurn: z.string().optional() }),
  z.object({ kind: z.literal('turn_end'), ts: z.number(), taskId: z.string(), stopReason: StopReasonSchema, usage: UsageSchema, rolloutPath: z.string() }),
]);

export class SessionLedger {
  constructor(private readonly root: string) {}

  private path(projectId: string, sessionId: string): string {
    return join(sessionsDir(this.root, projectId), `${sanitizeSegment(sessionId, 128, 'session')}.jsonl`);
  }

  async append(projectId: string, sessionId: string, entry: SessionEntry): Promise<void> {
    const e = EntrySchema.parse(entry);
    await fsp.mkdir(sessionsDir(this.root, projectId), { recursive: true, mode: 0o700 });
    await fsp.appendFile(this.path(projectId, sessionId), `${JSON.stringify(e)}\n`, { mode: 0o600 });
  }

  async read(projectId: string, sessionId: string): Promise<SessionSummary | null> {
    let text: string;
    try {
      text = await fsp.readFile(this.path(projectId, sessionId), 'utf8');
    } catch (err) {
      // an unreadable ledger is an error, never "no such session"
      if (isMissing(err)) return null;
      throw err;
    }
    const entries = parseEntries(text);
    const summary = summarise(projectId, sessionId, entries);
    if (summary === null) return null;
    // a turn killed before its turn_end (kill -9) still spent tokens: its rollouts recorded every call
    const ended = new Set(entries.filter((e) => e.kind === 'turn_end').map((e) => e.taskId));
    const open = entries.filter((e) => e.kind === 'turn_start' && !ended.has(e.taskId)).map((e) => e.taskId);
    if (open.length === 0) return summary;
    const extra = await this.rolloutTokens(projectId, new Set(open));
    return { ...summary, tokens: { input: summary.tokens.input + extra.input, output: summary.tokens.output + extra.output } };
  }

  /** Tokens of every rollout (the Director's and each delegation's) of the given tasks, from their llm_usage records. */
  private async rolloutTokens(projectId: string, taskIds: ReadonlySet<string>): Promise<{ input: number; output: number }> {
    let names: string[];
    try {
      names = (await fsp.readdir(rolloutDir(this.root, projectId))).filter((n) => n.endsWith('.jsonl'));
    } catch (err) {
      if (isMissing(err)) return { input: 0, output: 0 };
      throw err;
    }
    const heads = await Promise.all(names.map((n) => readHead(join(rolloutDir(this.root, projectId), n))));
    const paths = heads.filter((h) => h !== null && taskIds.has(h.meta.taskId)).map((h) => h?.path ?? '');
    const usage = (await Promise.all(paths.map(readRolloutUsage))).flat();
    return usage.reduce((t, e) => ({ input: t.input + e.usage.inputTokens, output: t.output + e.usage.outputTokens }), { input: 0, output: 0 });
  }

  /** Newest activity first. */
  async list(projectId: string): Promise<SessionSummary[]> {
    let names: string[];
    try {
      names = (await fsp.readdir(sessionsDir(this.root, projectId))).filter((n) => n.endsWith('.jsonl'));
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    const all = await Promise.all(names.map((n) => this.read(projectId, n.slice(0, -'.jsonl'.length))));
    return all.filter((s): s is SessionSummary => s !== null).sort((a, b) => b.updatedAt - a.updatedAt);
  }
}

function parseEntries(text: string): SessionEntry[] {
  const out: SessionEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    try {
      const r = EntrySchema.safeParse(JSON.parse(line));
      if (r.success) out.push(r.data as SessionEntry);
    } catch {
      // a torn line (crash mid-append) is skipped; the turn then reads as interrupted
    }
  }
  return out;
}

export function summarise(projectId: string, sessionId: string, entries: readonly SessionEntry[]): SessionSummary | null {
  const starts = entries.filter((e) => e.kind === 'turn_start');
  const first = starts[0];
  const last = starts.at(-1);
  if (!first || !last) return null;
  const ends = entries.filter((e) => e.kind === 'turn_end');
  // a turn whose Director never opened a rollout ended with none (''): the conversation is in the one before it
  const lastEnd = ends.filter((e) => e.rolloutPath !== '').at(-1);
  const ended = ends.find((e) => e.taskId === last.taskId);
  const stopReason = ended?.stopReason ?? null;
  return {
    sessionId,
    projectId,
    workspace: first.workspace,
    startedAt: first.ts,
    updatedAt: Math.max(...entries.map((e) => e.ts)),
    turns: starts.length,
    lastPrompt: last.prompt,
    lastTaskId: last.taskId,
    taskIds: starts.map((e) => e.taskId),
    turnStarts: starts.map((e) => e.ts),
    stopReason,
    lastRolloutPath: lastEnd?.rolloutPath ?? null,
    tokens: ends.reduce((t, e) => ({ input: t.input + e.usage.inputTokens, output: t.output + e.usage.outputTokens }), { input: 0, output: 0 }),
    ...(first.forkedFrom !== undefined ? { forkedFrom: first.forkedFrom } : {}),
    ...(first.forkedTurn !== undefined ? { forkedTurn: first.forkedTurn } : {}),
    resumable: resumability(),
  };
}

/** Every stop reason leaves a resumable session (issue 24): finished turns continue as a conversation; paused, cancelled,
 *  interrupted and failed ones carry their partial work, marked, into the next turn. */
export function resumability(): SessionSummary['resumable'] {
  return { ok: true };
}
