// Task ids: sortable by start time, unique by a random suffix.
import { randomUUID } from 'node:crypto';

export function newTaskId(now: Date = new Date()): string {
  return `task-${now.toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomUUID().slice(0, 8)}`;
}
