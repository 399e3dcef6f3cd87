// Typing while a task works (as in Claude Code and Codex): the message is shown as queued and left for the
// Director's next step boundary; what it did not take when its turn ended is the next turn (or, after a cancel,
// back in the input box). The store is the arbiter of what was taken, so nothing is given twice.
import type { QueueHost } from './parts.js';

export class MessageQueue {
  /** Typed while a turn ran and not handed to it (no backend support, or refused): the next turn's text. */
  private readonly unposted: string[] = [];
  private posts: Promise<void> = Promise.resolve();

  constructor(private readonly app: QueueHost) {}

  add(text: string): void {
    this.app.conv.addQueued(text);
    this.app.follow();
    this.app.notice = 'queued: the Director reads it at its next step';
    const queue = this.app.backend.queue;
    const posted = (ok: boolean): void => {
      if (!ok) this.unposted.push(text); // this backend cannot reach the running task: it is the next turn
    };
    if (!queue) return posted(false);
    this.app.command('tui-queue', (id) => {
      const post = queue(id, text).then(posted, () => posted(false));
      this.posts = Promise.all([this.posts, post]).then(() => undefined);
      return post;
    });
  }

  /** The turn ended: the messages its Director did not take become the next turn, or the input after a cancel. */
  async afterTurn(taskId: string, cancelled: boolean): Promise<void> {
    await this.posts;
    const takeBack = this.app.backend.takeQueued;
    const taken = takeBack ? await takeBack(taskId).catch(() => []) : [];
    const left = [...this.unposted.splice(0), ...taken];
    for (const t of left) this.app.conv.unqueue(t, false);
    // still shown queued: another client's message (`attach send`) the supervisor took back as its own next turn
    if (this.app.conv.dropQueued() > 0) this.app.notice = 'a queued message from another client is the supervisor\'s next turn (`yagent attach tasks`)';
    if (left.length === 0) return;
    const text = left.join('\n\n');
    if (!cancelled) return this.app.startTurn(text);
    this.app.input.take();
    this.app.input.insert(text);
    this.app.notice = 'cancelled: the queued message is back in the input box';
  }
}
