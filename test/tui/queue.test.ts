// Typing while a task works (@xterm/headless cells): the message is accepted and shown as queued, handed to the
// running task, shown as a user turn once the Director takes it; what it did not take is the next turn, or back in
// the input box after Esc.
import { afterEach, describe, expect, it } from 'vitest';
import { emptyOutcome } from '../../bin/host/empty-outcome.js';
import { quitScripted, scripted, type Scripted } from './scripted-backend.js';

afterEach(quitScripted);

const statusOf = (s: Scripted): string => s.term.rows().at(-1) ?? '';
const OUTCOME = emptyOutcome('t', 'plain_text');

function queueBackend(): { queued: string[]; over: Parameters<typeof scripted>[2] } {
  const queued: string[] = [];
  return {
    queued,
    over: {
      queue: (_id, text) => (queued.push(text), Promise.resolve(true)),
      // the store's answer: what the Director did not take
      takeQueued: () => Promise.resolve(queued.splice(0)),
      // the turn ends when the test says so (with the cancelled outcome a real supervisor gives)
      cancel: () => Promise.resolve(),
    },
  };
}

/** A running turn to which another client (`attach send`) gave a message: shown queued. */
async function runningWithOthersMessage(): Promise<{ b: ReturnType<typeof queueBackend>; s: Scripted }> {
  const b = queueBackend();
  const s = await scripted(100, 20, b.over);
  await s.step('first\r');
  s.deliver({ type: 'message_queued', text: 'from attach send' });
  await s.step('');
  expect(s.term.screenText()).toContain('⧗ queued: from attach send');
  return { b, s };
}

describe('TUI: typing while a task runs', () => {
  it('is queued (shown so), reaches the running task, and becomes a user turn where the Director takes it', async () => {
    const b = queueBackend();
    const s = await scripted(100, 20, b.over);
    await s.step('first\r');
    s.deliver({ type: 'ai_chunk', agent: 'director', text: 'working on it' });
    await s.step('also the README\r');
    expect(b.queued).toEqual(['also the README']);
    expect(s.term.screenText()).toContain('⧗ queued: also the README');
    expect(statusOf(s)).toContain('queued: the Director reads it at its next step');
    expect(statusOf(s)).not.toContain('a task is running');
    // the Director takes it at its next step: no longer queued, a user turn after what it said so far
    b.queued.splice(0);
    s.deliver({ type: 'user_message', agent: 'director', text: 'also the README' });
    await s.step('');
    const screen = s.term.screenText();
    expect(screen).not.toContain('queued: also the README');
    expect(screen.indexOf('› also the README')).toBeGreaterThan(screen.indexOf('working on it'));
    s.end(OUTCOME);
    await s.step('');
    expect(s.calls).toEqual(['start: first']);
  });

  it('a message the turn ended before taking is the next turn; after Esc it goes back into the input box', async () => {
    const b = queueBackend();
    const s = await scripted(100, 20, b.over);
    await s.step('first\r');
    await s.step('then this\r');
    s.end(OUTCOME);
    await s.step('');
    expect(s.calls).toEqual(['start: first', 'start: then this']);
    expect(s.term.screenText()).not.toContain('queued: then this');
    expect(s.term.screenText()).toContain('› then this');
    // Esc cancels the running turn; the queued message is not sent, it is back in the input box
    await s.step('and this\r');
    await s.step('\x1b');
    s.end({ ...OUTCOME, stopReason: 'cancelled' });
    await s.step('');
    expect(s.calls).toEqual(['start: first', 'start: then this']);
    expect(s.app.input.text).toBe('and this');
    expect(statusOf(s)).toContain('the queued message is back in the input box');
  });

  it("another client's message to the running task (`attach send`) is shown queued until the Director takes it; its own is shown once", async () => {
    const { b, s } = await runningWithOthersMessage();
    await s.step('mine\r');
    s.deliver({ type: 'message_queued', text: 'mine' });
    await s.step('');
    expect(s.term.screenText().split('queued: mine').length).toBe(2);
    b.queued.splice(0);
    s.deliver({ type: 'user_message', agent: 'director', text: 'from attach send' });
    await s.step('');
    expect(s.term.screenText()).not.toContain('queued: from attach send');
    expect(s.term.screenText()).toContain('› from attach send');
    s.end(OUTCOME);
    await s.step('');
  });

  it("another client's message the turn ended before taking, taken back by the supervisor: no longer shown queued, the notice says where it went", async () => {
    const { s } = await runningWithOthersMessage();
    s.end(OUTCOME);
    await s.step('');
    expect(s.term.screenText()).not.toContain('queued: from attach send');
    expect(statusOf(s)).toContain("supervisor's next turn");
    expect(s.calls).toEqual(['start: first']);
  });
});
