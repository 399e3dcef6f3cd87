// Helpers actors use to reach the store actor (`ctx.connect<StoreApi>('store')`) and render for tools.
import type { ActorContext, Remote } from '../runtime/actor.js';
import type { YagentConfig } from '../runtime/config/types.js';
import type { GcOptions, NoteMeta, StoreApi } from './api.js';
import { renderHandoff } from './blackboard/handoff-text.js';
import { gcOptionsFromConfig } from './blackboard/options.js';
import { undoForTool, type UndoAccess } from './client-undo.js';

/** The one project-id function (rollout directories): actors reach it here, never through data-paths.ts. */
export { projectIdFor } from './data-paths.js';
/** The data root (user-level skills are read from under it; the store stays the only writer). */
export { dataRoot } from './data-paths.js';

export const STORE_ACTOR = 'store';
export { boardIndexReader } from './client-index.js';
export { TASK_INBOX_SHARED_KEY, bumpInbox, createInboxSignal, inboxWatcher } from './inbox-signal.js';
export { STORE_MODULE } from './store-module.js';

/** The store service's input from the loaded config: `[blackboard] ttl / max_notes_per_board` drive its scheduled GC
 *  (without it the store schedules no GC: a user's `ttl = "0"` must never meet a default week); `[logs]` its log files;
 *  every provider's key is a secret the store never writes. */
export function storeInputFromConfig(config: Pick<YagentConfig, 'blackboard'> & Partial<Pick<YagentConfig, 'logs' | 'providers' | 'undo'>>): {
  blackboardGc: GcOptions;
  logs?: YagentConfig['logs'];
  undo?: YagentConfig['undo'];
  secrets: string[];
} {
  const secrets = Object.values(config.providers ?? {}).map((p) => p.apiKey).filter((k) => k !== '');
  return { blackboardGc: gcOptionsFromConfig(config.blackboard), ...(config.logs ? { logs: config.logs } : {}), ...(config.undo ? { undo: config.undo } : {}), secrets };
}

export function connectStore(ctx: Pick<ActorContext, 'connect'>, opts?: { open?: boolean }): Remote<StoreApi> {
  return ctx.connect<StoreApi>(STORE_ACTOR, opts);
}

/** One list line per note: ref, status, one-line conclusion, body size (never the body). */
export function formatNoteLine(m: NoteMeta): string {
  const mentions = m.handoff.mentions.length > 0 ? ` @${m.handoff.mentions.join(' @')}` : '';
  return `${m.ref} [${m.handoff.status}] ${m.handoff.conclusion.replace(/\s+/g, ' ').trim()} (${m.bodySize} bytes)${mentions}`;
}

/** What the notes/artifact tools show the model, built over the store API. */
export function toolStoreAccess(store: Pick<Remote<StoreApi>, 'listNotes' | 'readNote' | 'readArtifact' | 'writeArtifact' | 'writeImageArtifact'> & UndoAccess) {
  return {
    undo: (workspace: string, taskId: string, id: string | undefined, dryRun: boolean) => undoForTool(store, workspace, taskId, id, dryRun),
    writeArtifact: (content: string): Promise<string> => store.writeArtifact(content),
    writeImageArtifact: (png: Uint8Array): Promise<string> => store.writeImageArtifact(png),
    async listNotes(boardId: string, opts: { agent?: string; limit?: number }): Promise<string> {
      const notes = await store.listNotes(boardId, opts);
      return notes.length === 0 ? '(no notes on this board)' : notes.map(formatNoteLine).join('\n');
    },
    async readNote(boardId: string, ref: string): Promise<string> {
      const n = await store.readNote(boardId, ref);
      if (!n) return `note ${ref} not found`;
      return `${renderHandoff(n.meta.handoff)}\n\n${n.body}`;
    },
    async readArtifact(id: string, opts: { offset?: number; limit?: number }): Promise<string> {
      const p = await store.readArtifact(id, opts.offset, opts.limit);
      return p.nextOffset === null ? p.text : `${p.text}\n… (${p.total} chars; continue with offset=${p.nextOffset})`;
    },
  };
}

/** Which stops may be resumed (the one definition, shared with the session ledger). */
export { stopState } from './rollout/stop.js';
