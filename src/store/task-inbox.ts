// A running task's inbox: messages typed while it works and model switches, taken by its Director at the next step
// boundary. The store is the one arbiter: whatever the Director did not take when its turn ended, the client takes
// back (and sends as the next turn), so a message is delivered exactly once.
import type { TaskInboxItem } from './api.js';

/** Per task, in memory: an inbox lives as long as its turn (nothing of it is worth a file). */
export class TaskInbox {
  private readonly byTask = new Map<string, TaskInboxItem[]>();

  post(taskId: string, item: TaskInboxItem): number {
    const list = this.byTask.get(taskId) ?? [];
    list.push(item);
    this.byTask.set(taskId, list);
    return list.length;
  }

  take(taskId: string, kind?: TaskInboxItem['kind']): TaskInboxItem[] {
    const list = this.byTask.get(taskId);
    if (!list) return [];
    const taken = kind === undefined ? list : list.filter((i) => i.kind === kind);
    const left = kind === undefined ? [] : list.filter((i) => i.kind !== kind);
    if (left.length === 0) this.byTask.delete(taskId);
    else this.byTask.set(taskId, left);
    return taken;
  }
}
