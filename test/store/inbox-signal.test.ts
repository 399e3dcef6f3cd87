// The task inbox's signal: a Director asks the store for its inbox only after the host posted something.
import { describe, expect, it } from 'vitest';
import { bumpInbox, createInboxSignal, inboxWatcher } from '../../src/store/client.js';

describe('the task inbox signal', () => {
  it('a run sees each post once, a post made before it started included; without the buffer it asks every step', () => {
    const buf = createInboxSignal();
    bumpInbox(buf); // posted before the run started
    const moved = inboxWatcher(buf);
    expect(moved()).toBe(true);
    expect(moved()).toBe(false);
    bumpInbox(buf);
    bumpInbox(buf);
    expect(moved()).toBe(true);
    expect(moved()).toBe(false);
    const other = inboxWatcher(buf); // each run keeps its own view
    expect(other()).toBe(true);
    const always = inboxWatcher(undefined);
    expect([always(), always()]).toEqual([true, true]);
  });
});
