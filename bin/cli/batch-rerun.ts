// What a re-run of a batch does with each task: a finished one is skipped, a failed one is tried again (a new
// attempt, unless --no-retry-failed), an interrupted one continues its session (recovery B: recorded tool calls
// are not run again) instead of starting over. Each attempt's session id is derived from the results file, the
// task id and the attempt number, so the re-run finds the session an interrupted attempt left.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkSession } from './session-check.js';

export interface PriorResult {
  /** Result lines of this id so far (attempts that finished, well or not). */
  attempts: number;
  /** The latest line's status was ok. */
  ok: boolean;
}

/** Per id, what earlier runs wrote (a torn last line counts as nothing: that attempt runs again). */
export function priorResults(outFile: string): Map<string, PriorResult> {
  const out = new Map<string, PriorResult>();
  if (!existsSync(outFile)) return out;
  for (const line of readFileSync(outFile, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let r: { id?: unknown; status?: unknown };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      continue; // torn line from an interrupted append
    }
    if (typeof r.id !== 'string') continue;
    out.set(r.id, { attempts: (out.get(r.id)?.attempts ?? 0) + 1, ok: r.status === 'ok' });
  }
  return out;
}

/** The session (and first task) id of one attempt of one task of this results file: the same on every re-run. */
export function attemptTaskId(outFile: string, id: string, attempt: number): string {
  return `task-batch-${createHash('sha256').update(`${resolve(outFile)}\0${id}\0${attempt}`).digest('hex').slice(0, 16)}`;
}

/** The prompt of the turn that continues an interrupted attempt. */
export function continuationPrompt(prompt: string): string {
  return `This task was interrupted before it finished (the batch run stopped); what it did so far is above. Finish it:\n${prompt}`;
}

export type Start = { kind: 'fresh'; taskId: string } | { kind: 'continue'; sessionId: string } | { kind: 'restart'; reason: string };

/** How this attempt starts: fresh under its id, continuing the session its interrupted run left, or (a session that
 *  cannot be continued) over again under a new id, with the reason to tell the user. */
export async function attemptStart(workspace: string, taskId: string): Promise<Start> {
  const s = await checkSession(workspace, { resume: taskId });
  if ('sessionId' in s) return { kind: 'continue', sessionId: s.sessionId };
  if (s.refusal.startsWith('no session')) return { kind: 'fresh', taskId };
  return { kind: 'restart', reason: s.refusal };
}
