// Task memory `{root}/tasks/{taskID}.jsonl`: debounced saves (5 s, injectable clock), serialised per task; flush-all reports every failure.
// Not the source of truth for resume (that is the rollout).
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Clock, TaskGroup } from '../runtime/actor.js';
import { ChatMessageSchema } from '../runtime/protocol/index.js';
import { createTaskGroup } from '../runtime/tasks.js';
import type { FlushReport, MemoryJson } from './api.js';
import { atomicWrite } from './atomic-write.js';
import { sanitizeSegment, tasksDir } from './data-paths.js';
import { isMissing } from './errors.js';

export const TASK_MEMORY_DEBOUNCE_MS = 5000;
/** Name of the named task that writes one debounced snapshot: `task-memory:<taskId>`. */
export const taskMemoryTaskName = (taskId: string): string => `task-memory:${taskId}`;

const HeaderSchema = z.object({ max_size: z.number().int() });

export function taskMemoryPath(root: string, taskId: string): string {
  return join(tasksDir(root), `${sanitizeSegment(taskId, 128, 'task')}.jsonl`);
}

/** First line `{max_size}`, then one message per line. */
export function encodeMemory(m: MemoryJson): string {
  return [JSON.stringify({ max_size: m.max_size }), ...m.messages.map((x) => JSON.stringify(x))].join('\n') + '\n';
}

export function decodeMemory(text: string): MemoryJson | null {
  const lines = text.split('\n').filter((l) => l.length > 0);
  try {
    const head = HeaderSchema.parse(JSON.parse(lines[0] ?? ''));
    return { max_size: head.max_size, messages: lines.slice(1).map((l) => ChatMessageSchema.parse(JSON.parse(l))) };
  } catch {
    return null;
  }
}

export class TaskMemoryStore {
  private pending = new Map<string, { memory: MemoryJson; timer: { cancel(): void } }>();
  /** Debounced writes already started: flush-all waits for them, so shutdown never outruns one. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Per-task write chain (settles, never rejects): a write starts only after the task's previous one ended. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly root: string,
    private readonly clock: Clock,
    private readonly debounceMs = TASK_MEMORY_DEBOUNCE_MS,
    /** Injectable writer so a test can make one task's write fail. */
    private readonly write: (path: string, text: string) => Promise<void> = (p, t) => atomicWrite(p, t),
    /** Where a debounced write runs (the store actor's `ctx.tasks`); its failure is reported there too. */
    private readonly tasks: TaskGroup = createTaskGroup({ clock }),
  ) {}

  /** Replaces the pending snapshot and restarts the debounce window. */
  save(taskId: string, memory: MemoryJson): void {
    this.pending.get(taskId)?.timer.cancel();
    const timer = this.clock.setTimeout(() => this.startFlush(taskId), this.debounceMs);
    this.pending.set(taskId, { memory, timer });
  }

  /** The debounce fired: write as a named task; a failure keeps the snapshot for flush-all to retry and report. */
  private startFlush(taskId: string): void {
    this.tasks.go(taskMemoryTaskName(taskId), async () => {
      const write = this.flushOne(taskId);
      this.inFlight.add(write);
      try {
        await write;
      } finally {
        this.inFlight.delete(write);
      }
    });
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Queues a write of the task's latest snapshot behind its previous write, so an older one never lands last. */
  private async flushOne(taskId: string): Promise<void> {
    const prev = this.chains.get(taskId);
    const mine = (async (): Promise<void> => {
      if (prev) await prev;
      await this.writeLatest(taskId);
    })();
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(taskId, settled);
    try {
      await mine;
    } finally {
      if (this.chains.get(taskId) === settled) this.chains.delete(taskId);
    }
  }

  /** Takes the snapshot pending *now* (the newest), not the one pending when the write was queued. */
  private async writeLatest(taskId: string): Promise<void> {
    const p = this.pending.get(taskId);
    if (!p) return;
    this.pending.delete(taskId);
    p.timer.cancel();
    try {
      await this.write(taskMemoryPath(this.root, taskId), encodeMemory(p.memory));
    } catch (err) {
      // keep the snapshot so flush-all retries it and reports the failure; never lose it silently
      if (!this.pending.has(taskId)) this.pending.set(taskId, { memory: p.memory, timer: { cancel: () => undefined } });
      throw err;
    }
  }

  /** Writes everything pending; continues past failures and reports each one. */
  async flushAll(): Promise<FlushReport> {
    const report: FlushReport = { written: [], failed: [] };
    // a write the debounce already started finishes (or fails back into `pending`) before we look
    await Promise.allSettled([...this.inFlight]);
    for (const taskId of [...this.pending.keys()]) {
      try {
        await this.flushOne(taskId);
        report.written.push(taskId);
      } catch (err) {
        report.failed.push({ taskId, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return report;
  }

  /** Forgets the pending snapshot (its timer too) and removes the file; waits for a write already under way. */
  async delete(taskId: string): Promise<boolean> {
    const p = this.pending.get(taskId);
    p?.timer.cancel();
    this.pending.delete(taskId);
    await this.chains.get(taskId);
    // only a missing file means "nothing to remove"; any other failure reaches the caller (the file is still there)
    const removed = await fsp.rm(taskMemoryPath(this.root, taskId)).then(() => true, (err: unknown) => (isMissing(err) ? false : Promise.reject(err)));
    return removed || p !== undefined;
  }

  async load(taskId: string): Promise<MemoryJson | null> {
    const p = this.pending.get(taskId);
    if (p) return p.memory;
    let text: string;
    try {
      text = await fsp.readFile(taskMemoryPath(this.root, taskId), 'utf8');
    } catch (err) {
      // no file is no memory; an unreadable one is an error, never reported as "none"
      if (isMissing(err)) return null;
      throw err;
    }
    return decodeMemory(text);
  }
}
