// The task inbox's signal: an Int32 in shared memory that the host bumps after each post to a task's inbox (a message
// typed while it runs, a model switch). A Director asks the store for its inbox only when the counter moved: without
// it every step paid one store round trip (~2 ms a step on the cli bench's gap).
export const TASK_INBOX_SHARED_KEY = 'store.task-inbox-generation';

export function createInboxSignal(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}

/** Called after the store holds the posted item, so a Director that sees the bump finds it. */
export function bumpInbox(buf: SharedArrayBuffer | undefined): void {
  if (buf !== undefined) Atomics.add(new Int32Array(buf), 0, 1);
}

/** One run's view: true when the counter moved since the last call (always true without the buffer: ask each step). */
export function inboxWatcher(buf: SharedArrayBuffer | undefined): () => boolean {
  if (buf === undefined) return () => true;
  const generation = new Int32Array(buf);
  let seen = 0; // a post before this run started moved it already: the first step asks
  return () => {
    const now = Atomics.load(generation, 0);
    if (now === seen) return false;
    seen = now;
    return true;
  };
}
