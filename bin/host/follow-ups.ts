// Follow-up messages (`POST /api/send`, `attach send`). To a running turn: posted to its inbox, the Director reads it
// at its next step boundary (as a message typed in the TUI); what it has not taken when the turn ends is the next turn.
// To an idle task (or one with follow-ups already waiting, or naming a model): the next turn of its session, in order.
import { newTaskId } from './ids.js';
import type { SendResult, TaskOutcome, TaskSpec } from './types.js';

export interface FollowUpDeps {
  start(spec: TaskSpec): { taskId: string; done: Promise<TaskOutcome> };
  /** Posts to a running turn's inbox; false when it is not running. */
  post(turnId: string, text: string): Promise<boolean>;
  /** What the turn's Director did not take before it ended. */
  takeBack(turnId: string): Promise<string[]>;
}

/** Where a message goes: `turnId` running (null: none), its turn's outcome, and whether it may take the message. */
export interface SendTarget {
  turnId: string | null;
  done: Promise<TaskOutcome>;
  idle: boolean;
  /** A message naming a provider or model is a turn of its own on it. */
  ownTurn: boolean;
}

export class FollowUps {
  /** Per task: the turn a follow-up continues (the newest one sent so far), so queued messages chain in order. */
  private readonly tails = new Map<string, Promise<TaskOutcome>>();
  private readonly queued = new Map<string, number>();
  /** Per task: follow-up turns not started yet (a message must not overtake them into the running turn). */
  private readonly unstarted = new Map<string, number>();
  /** Per task: the newest turn started for it, the one a message to the task reaches while it runs. */
  private readonly latest = new Map<string, string>();
  /** Turns whose leftovers are already taken back when they end. */
  private readonly sweeping = new Set<string>();

  constructor(private readonly deps: FollowUpDeps) {}

  /** The turn a message to `taskId` is for: its newest follow-up turn, else itself. */
  current(taskId: string): string {
    return this.latest.get(taskId) ?? taskId;
  }

  async send(taskId: string, message: string, spec: TaskSpec, target: SendTarget): Promise<SendResult> {
    const waiting = this.unstarted.get(taskId) ?? 0;
    if (target.turnId !== null && !target.ownTurn && waiting === 0 && (await this.deps.post(target.turnId, message))) {
      this.sweepAfter(taskId, target.turnId, spec, target.done);
      return { delivered: 'next_step', taskId: target.turnId };
    }
    return this.nextTurn(taskId, message, spec, target);
  }

  /** When the turn ends, the messages its Director did not take are one next turn (as the TUI sends them). */
  private sweepAfter(taskId: string, turnId: string, spec: TaskSpec, done: Promise<TaskOutcome>): void {
    if (this.sweeping.has(turnId)) return;
    this.sweeping.add(turnId);
    const nextId = newTaskId();
    const tail = this.tails.get(taskId) ?? done;
    const turn = tail.then(async (prev) => {
      const left = await this.deps.takeBack(turnId).catch(() => []);
      this.sweeping.delete(turnId);
      return left.length === 0 ? prev : this.startAfter(taskId, nextId, left.join('\n\n'), spec, prev);
    });
    this.tails.set(taskId, turn);
  }

  private nextTurn(taskId: string, message: string, spec: TaskSpec, target: SendTarget): SendResult {
    const nextId = newTaskId();
    const tail = this.tails.get(taskId) ?? target.done;
    const ahead = this.queued.get(taskId) ?? 0; // follow-ups of this task not finished yet
    this.queued.set(taskId, ahead + 1);
    this.unstarted.set(taskId, (this.unstarted.get(taskId) ?? 0) + 1);
    const turn = tail
      .then((prev) => (this.unstarted.set(taskId, (this.unstarted.get(taskId) ?? 1) - 1), this.startAfter(taskId, nextId, message, spec, prev)))
      .finally(() => this.queued.set(taskId, (this.queued.get(taskId) ?? 1) - 1));
    this.tails.set(taskId, turn);
    if (target.idle && ahead === 0) return { delivered: 'next_turn', taskId: nextId };
    return { delivered: 'queued', taskId: nextId, position: ahead + (target.idle ? 0 : 1) };
  }

  private startAfter(taskId: string, nextId: string, prompt: string, spec: TaskSpec, prev: TaskOutcome): Promise<TaskOutcome> {
    this.latest.set(taskId, nextId);
    return this.deps.start({ ...spec, taskId: nextId, prompt, session: prev.sessionId !== undefined ? { resume: prev.sessionId } : undefined }).done;
  }
}
