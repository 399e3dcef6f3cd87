// A failure never ends a session in the TUI (issue 24): after a turn that stopped with llm_error (or was cancelled),
// the next prompt continues the same session.
import { afterEach, describe, expect, it } from 'vitest';
import { emptyOutcome } from '../../bin/host/empty-outcome.js';
import type { TaskOutcome } from '../../bin/host/types.js';
import { quitScripted, scripted } from './scripted-backend.js';

afterEach(quitScripted);

const outcome = (stopReason: TaskOutcome['stopReason'], sessionId: string): TaskOutcome => ({
  ...emptyOutcome('t', stopReason, stopReason === 'llm_error' ? { name: 'LlmError', message: 'model call failed: 500' } : undefined),
  sessionId,
});

describe('TUI sessions after a failed turn', () => {
  it.each(['llm_error', 'panic', 'cancelled'] as const)('a turn that stopped with %s: the next prompt continues the same session', async (stop) => {
    const s = await scripted(100, 30);
    await s.step('first\r');
    s.end(outcome(stop, 'S1'));
    await s.step('');
    expect(s.app.run).toBe('idle');
    await s.step('second\r');
    expect(s.calls.filter((c) => c.startsWith('start:'))).toEqual(['start: first', 'start: second session=S1']);
  });
});
