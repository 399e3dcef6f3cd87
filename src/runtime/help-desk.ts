// User-help round trips: pairs user_help_needed with user_help_response by requestId across clients, and says so
// (user_help_withdrawn) when a request ends without an answer, so that every client closes its dialog.
import type { PublishSource } from './dispatcher.js';
import { RemoteError, type Event, type EventOf } from './protocol/index.js';

interface PendingHelp {
  /** The asking actor: its help events (the request, its withdrawal) are published as its own. */
  source: PublishSource;
  resolve(ev: EventOf<'user_help_response'>): void;
  reject(err: Error): void;
}

export type HelpRequest = Omit<EventOf<'user_help_needed'>, 'type' | 'requestId'>;

export type HelpResponseInput = Omit<EventOf<'user_help_response'>, 'type' | 'scope'> & {
  scope?: EventOf<'user_help_response'>['scope'];
};

export class HelpDesk {
  private readonly pending = new Map<string, PendingHelp>();

  constructor(
    public hasResponder: boolean,
    private readonly publish: (source: PublishSource, event: Event) => void,
  ) {}

  /** Registers a request and publishes it; rejects with NO_RESPONDER at once when nobody can answer (headless: the
   *  client still sees the request, which is how it knows an approval was needed). */
  ask(requestId: string, source: PublishSource, request: HelpRequest): Promise<EventOf<'user_help_response'>> {
    const answer = this.open(requestId, source);
    this.publish(source, { type: 'user_help_needed', requestId, ...request });
    return answer;
  }

  private open(requestId: string, source: PublishSource): Promise<EventOf<'user_help_response'>> {
    if (!this.hasResponder) {
      return Promise.reject(new RemoteError({ name: 'NoResponder', message: 'no client can answer user help (headless run)', code: 'NO_RESPONDER' }));
    }
    return new Promise((resolve, reject) => this.pending.set(requestId, { source, resolve, reject }));
  }

  /** Routes a response and publishes it (every other client closes its dialog); false when no request with that id is
   *  waiting (already answered or withdrawn). */
  answer(input: HelpResponseInput): boolean {
    const p = this.pending.get(input.requestId);
    if (!p) return false;
    this.pending.delete(input.requestId);
    const ev: EventOf<'user_help_response'> = { type: 'user_help_response', scope: 'once', ...input };
    p.resolve(ev);
    this.publish({ name: 'client', taskId: p.source.taskId, delegationId: null }, ev);
    return true;
  }

  /** The asker gave up (its run was cancelled or timed out while it waited). */
  cancel(requestId: string): void {
    const p = this.pending.get(requestId);
    if (p) this.withdraw(requestId, p, 'CANCELLED', 'the asker gave up', 'cancelled by the agent that asked');
  }

  /** The asking actor's worker is gone (crashed, stopped, killed): nobody waits for its requests any more. */
  actorGone(taskId: string, name: string): void {
    this.withdrawWhere((s) => s.taskId === taskId && s.name === name, 'CANCELLED', `${name} is gone`);
  }

  /** Rejects every request of a task (or all when taskId is undefined). */
  failAll(taskId: string | null | undefined, code: string, message: string): void {
    this.withdrawWhere((s) => taskId === undefined || s.taskId === taskId, code, message);
  }

  waiting(): string[] {
    return [...this.pending.keys()];
  }

  private withdrawWhere(match: (source: PublishSource) => boolean, code: string, message: string): void {
    for (const [id, p] of [...this.pending]) if (match(p.source)) this.withdraw(id, p, code, message);
  }

  /** Ends a request unanswered: the asker's wait rejects, every client closes its dialog. */
  private withdraw(requestId: string, p: PendingHelp, code: string, message: string, reason = message): void {
    this.pending.delete(requestId);
    p.reject(new RemoteError({ name: 'HelpCancelled', message, code }));
    this.publish(p.source, { type: 'user_help_withdrawn', requestId, reason });
  }
}
