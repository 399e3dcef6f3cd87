// User-help round trips: pairs user_help_needed with user_help_response by requestId across clients.
import { RemoteError, type EventOf } from './protocol/index.js';

interface PendingHelp {
  taskId: string | null;
  resolve(ev: EventOf<'user_help_response'>): void;
  reject(err: Error): void;
}

export type HelpResponseInput = Omit<EventOf<'user_help_response'>, 'type' | 'scope'> & {
  scope?: EventOf<'user_help_response'>['scope'];
};

export class HelpDesk {
  private readonly pending = new Map<string, PendingHelp>();

  constructor(public hasResponder: boolean) {}

  /** Registers a request; rejects with NO_RESPONDER at once when nobody can answer (headless). */
  open(requestId: string, taskId: string | null): Promise<EventOf<'user_help_response'>> {
    if (!this.hasResponder) {
      return Promise.reject(new RemoteError({ name: 'NoResponder', message: 'no client can answer user help (headless run)', code: 'NO_RESPONDER' }));
    }
    return new Promise((resolve, reject) => this.pending.set(requestId, { taskId, resolve, reject }));
  }

  /** Routes a response; false when no request with that id is waiting (already answered or cancelled). */
  answer(input: HelpResponseInput): EventOf<'user_help_response'> | null {
    const p = this.pending.get(input.requestId);
    if (!p) return null;
    this.pending.delete(input.requestId);
    const ev: EventOf<'user_help_response'> = { type: 'user_help_response', scope: 'once', ...input };
    p.resolve(ev);
    return ev;
  }

  taskOf(requestId: string): string | null | undefined {
    return this.pending.get(requestId)?.taskId;
  }

  cancel(requestId: string): void {
    this.pending.delete(requestId);
  }

  /** Rejects every request of a task (or all when taskId is undefined). */
  failAll(taskId: string | null | undefined, code: string, message: string): void {
    for (const [id, p] of [...this.pending]) {
      if (taskId !== undefined && p.taskId !== taskId) continue;
      this.pending.delete(id);
      p.reject(new RemoteError({ name: 'HelpCancelled', message, code }));
    }
  }

  waiting(): string[] {
    return [...this.pending.keys()];
  }
}
