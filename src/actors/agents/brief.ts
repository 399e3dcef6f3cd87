// The delegation prefix: the task, emphasised notes in full, and the AGENTS.md of the named directories.
import { publishWarning, type LogEvent } from '../../runtime/log-event.js';
import type { StoreApi } from '../../store/api.js';
import type { ProjectContext } from './project-context.js';

export interface BriefInput {
  task: string;
  refs: readonly string[];
  boardId: string;
  store: Pick<StoreApi, 'resolveRefs'>;
  projectContext: ProjectContext;
  /** Where a failure to resolve the refs is said (the brief then names them as unread). */
  publish: (event: LogEvent) => void;
  /** The note whose @mention asked for this delegation. */
  triggeredBy?: string | undefined;
}

export async function buildBrief(b: BriefInput): Promise<string> {
  const parts: string[] = ['# Your task', '', b.task.trim()];
  if (b.triggeredBy) parts.push('', `You were asked for in note ${b.triggeredBy} (included below): answer what it asks of you.`);
  if (b.refs.length > 0) {
    const pack = await b.store.resolveRefs(b.boardId, [...b.refs]).catch((e: unknown) => {
      publishWarning(b.publish, 'resolveRefs', `notes ${b.refs.join(', ')} left out of the brief`, e);
      return { notes: [], unresolved: [...b.refs] };
    });
    parts.push('', '# Notes you were pointed to');
    for (const n of pack.notes) parts.push('', `## note ${n.ref} (${n.agent})${n.truncated ? ' — truncated, read_note for the rest' : ''}`, '', n.text.trim());
    // paths and artifact ids are not notes: the brief names them and says how to read them
    if (pack.unresolved.length > 0) parts.push('', `Also read first (not notes on this board: files to open with read_file, artifact ids with read_artifact, or stale refs): ${pack.unresolved.join(', ')}`);
  }
  const docs = await b.projectContext.moduleDocsForTask(b.task);
  if (docs.text !== '') parts.push('', '# Local rules of the directories in this task (AGENTS.md)', '', docs.text);
  return parts.join('\n');
}

/** First `max` characters on a line boundary when possible, with a visible cut marker. */
export function summarize(text: string, max: number): string {
  const t = text.trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const nl = cut.lastIndexOf('\n');
  return `${(nl > max / 2 ? cut.slice(0, nl) : cut).trimEnd()} …`;
}
