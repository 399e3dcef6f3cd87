// The store actor: runs StoreService in its own worker and serves exactly the StoreApi methods over RPC.
import { z } from 'zod';
import { defineActor } from '../runtime/actor.js';
import { CPU_SERVICE, type CpuService } from '../runtime/cpu-service.js';
import type { StoreApi } from './api.js';
import type { GcSchedule } from './blackboard/gc-schedule.js';
import { StoreService } from './service.js';

export const StoreActorInputSchema = z
  .object({
    root: z.string().optional(),
    notesRoot: z.string().optional(),
    taskMemoryDebounceMs: z.number().int().nonnegative().optional(),
    agents: z.array(z.object({ id: z.string(), aliases: z.array(z.string()).optional() })).optional(),
    /** `[blackboard] ttl / max_notes_per_board` as normalised by the config (storeInputFromConfig); absent = no scheduled GC. */
    blackboardGc: z.object({ ttlMs: z.number().nonnegative(), maxNotesPerBoard: z.number().int().nonnegative() }).optional(),
    /** `[logs] keep_days / max_file_mb` as normalised by the config (default DEFAULT_LOG_OPTIONS). */
    logs: z.object({ keepDays: z.number().int().nonnegative(), maxFileBytes: z.number().int().positive() }).optional(),
    /** `[undo] enable / keep_days / max_mb` as normalised by the config (default DEFAULT_UNDO_OPTIONS). */
    undo: z.object({ enabled: z.boolean(), keepDays: z.number().int().nonnegative(), maxBytes: z.number().int().nonnegative() }).optional(),
    /** Values never written under the data root (every provider's key); secret-named env values are added in the store. */
    secrets: z.array(z.string()).optional(),
    /** Between scheduled GC passes (default GC_EVERY_MS). */
    gcEveryMs: z.number().int().positive().optional(),
    policy: z
      .object({
        batchRecords: z.number().int().positive().optional(),
        batchMs: z.number().nonnegative().optional(),
        maxQueuedRecords: z.number().int().positive().optional(),
        maxQueuedBytes: z.number().int().positive().optional(),
        maxFileBytes: z.number().int().positive().optional(),
        maxReplayBytes: z.number().int().nonnegative().optional(),
      })
      .optional(),
  })
  .default({});
export type StoreActorInput = z.input<typeof StoreActorInputSchema>;

/** The served surface: a closed list, so internals of the service never become RPC methods. */
const METHODS = {
  openRollout: true, appendRollout: true, drain: true, writeCheckpoint: true, readReplay: true, readStopFacts: true, readUsage: true,
  readSummary: true, listRollouts: true, writeNote: true, listNotes: true, readNote: true, buildIndex: true,
  resolveRefs: true, gcNotes: true, registerAgent: true, recordTimeline: true, postToTask: true, takeTaskInbox: true, timeline: true, writeArtifact: true, writeImageArtifact: true,
  readArtifact: true, saveTaskMemory: true, loadTaskMemory: true, flushTaskMemory: true, readSettings: true,
  authorizeProject: true, writeRunFile: true, removeRunFile: true, appendLogs: true, flush: true, shutdown: true,
  taskRollouts: true, recordSessionTurn: true, readSession: true, listSessions: true, deleteTaskMemory: true,
  undoPoint: true, undoEnd: true, undoList: true, undoRestore: true,
  readCodeIndex: true, writeCodeIndex: true, readBlueprint: true, writeBlueprint: true,
} satisfies Record<keyof StoreApi, true>;

export function facade(svc: StoreApi): StoreApi {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(METHODS) as (keyof StoreApi)[]) {
    const fn = svc[name] as (...a: unknown[]) => unknown;
    out[name] = (...args: unknown[]) => fn.apply(svc, args);
  }
  return out as unknown as StoreApi;
}

let service: StoreService | null = null;
let gc: GcSchedule | null = null;

export default defineActor<StoreActorInput, never>({
  kind: 'store',
  async serve(ctx, input) {
    const opts = StoreActorInputSchema.parse(input);
    const { blackboardGc, gcEveryMs, ...rest } = opts;
    service = new StoreService({ ...rest, clock: ctx.clock, tasks: ctx.tasks, cpu: ctx.connect<CpuService>(CPU_SERVICE) });
    // the first pass starts now as a named task; serving (and every write) does not wait for it
    if (blackboardGc) gc = service.scheduleGc(ctx.tasks, blackboardGc, gcEveryMs);
    return facade(service);
  },
  async stop() {
    gc?.stop();
    // every buffered record and debounced snapshot is durable before the worker exits
    await service?.shutdown();
  },
});
