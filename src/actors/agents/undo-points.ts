// Undo points around a delegation that can change files: a snapshot before it runs, its end state after (issue 26).
import { publishWarning } from '../../runtime/log-event.js';
import type { StoreApi } from '../../store/api.js';
import { BUILTIN_TOOLS } from '../tools/registry.js';
import type { Publish } from './loop-contract.js';
import type { CustomAgentDesign, RunSettings } from './run-types.js';

export type UndoStore = Pick<StoreApi, 'undoPoint' | 'undoEnd'>;

/** Built-in agents whose tools write: files (Coding) or anything through the shell (both). */
const WRITERS: ReadonlySet<string> = new Set(['coding', 'devops']);

/** A custom agent writes when one of its tools does, or when one is not built in (an MCP tool may write). */
export function canWrite(target: string, custom: CustomAgentDesign | undefined): boolean {
  if (custom === undefined) return WRITERS.has(target);
  return custom.tools.some((name) => {
    const d = BUILTIN_TOOLS.find((t) => t.name === name);
    return d === undefined || d.tags.effect === 'fs_write' || d.tags.effect === 'shell';
  });
}

/** The snapshot before the delegation (its id), or null: a read-only agent, `[undo] enable = false`, or a failure
 *  (a warning: the delegation runs without an undo point rather than not at all). */
export async function undoBefore(store: UndoStore, settings: RunSettings, publish: Publish, callId: string, target: string, task: string, custom: CustomAgentDesign | undefined, writes = canWrite(target, custom)): Promise<string | null> {
  if (!writes) return null;
  try {
    const p = await store.undoPoint({ workspace: settings.workspace, kind: 'delegation', agent: target, taskId: settings.taskId, callId, label: task.slice(0, 200) });
    return p?.id ?? null;
  } catch (e) {
    publishWarning(publish, 'undoPoint', `no undo point before ${target} (${callId})`, e);
    return null;
  }
}

/** The delegation ended (any outcome): its end state, so a later change to its files is told apart. */
export async function undoAfter(store: UndoStore, settings: RunSettings, publish: Publish, id: string | null): Promise<void> {
  if (id === null) return;
  await store.undoEnd(settings.workspace, id).catch((e: unknown) => publishWarning(publish, 'undoEnd', `the end state of undo point ${id} was not recorded (its files are compared with now)`, e));
}
