// Task ids: sortable by start time, unique by a random suffix.
import { randomUUID } from 'node:crypto';

/** Ids this process made that no run has claimed yet: no earlier run can have written to a board of such an id. */
const unclaimed = new Set<string>();

export function newTaskId(now: Date = new Date()): string {
  const id = `task-${now.toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomUUID().slice(0, 8)}`;
  unclaimed.add(id);
  return id;
}

/** True once for an id newTaskId made in this process (its first run: a fresh board); false for any other id. */
export function claimNewTaskId(id: string): boolean {
  return unclaimed.delete(id);
}
