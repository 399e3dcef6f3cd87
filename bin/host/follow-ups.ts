// Follow-up messages (`POST /api/send`, `attach send`): each becomes the next turn of the task's session.
// An idle task gets its next turn at once; a running one queues it, started in order when the turn ends.
import { newTaskId } from './ids.js';
import type { SendResult, TaskOutcome, TaskSpec } from './types.js';

type Start = (spec: TaskSpec) => { taskId: string; done: Promise<TaskOutcome> };

export class FollowUps {
  /** Per task: the turn a follow-up continues (the newest one sent so far), so queued messages chain in order. */
  private readonly tails = new Map<string, Promise<TaskOutcome>>();
  private readonly queued = new Map<string, number>();

  constructor(private readonly start: Start) {}

  send(taskId: string, message: string, spec: TaskSpec, done: Promise<TaskOutcome>, idle: boolean): SendResult {
    const nextId = newTaskId();
    const tail = this.tails.get(taskId) ?? done;
    const ahead = this.queued.get(taskId) ?? 0; // follow-ups of this task not finished yet
    this.queued.set(taskId, ahead + 1);
    const turn = tail
      .then((prev) => this.start({ ...spec, taskId: nextId, prompt: message, session: prev.sessionId !== undefined ? { resume: prev.sessionId } : undefined }).done)
      .finally(() => this.queued.set(taskId, (this.queued.get(taskId) ?? 1) - 1));
    this.tails.set(taskId, turn);
    if (idle && ahead === 0) return { delivered: 'next_turn', taskId: nextId };
    return { delivered: 'queued', taskId: nextId, position: ahead + (idle ? 0 : 1) };
  }
}
