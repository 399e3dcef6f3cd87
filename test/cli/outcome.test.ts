// Exit codes come from the store's one stop classification (finished → 0, cancelled → 130, the rest → 1).
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../bin/cli/outcome.js';
import { emptyOutcome } from '../../bin/host/empty-outcome.js';
import { STOP_REASONS } from '../../src/runtime/protocol/stop.js';
import { stopState } from '../../src/store/rollout/stop.js';

const outcome = (stopReason: Parameters<typeof emptyOutcome>[1]) => emptyOutcome('t', stopReason);

describe('exit code from the stop state', () => {
  it('every stop reason maps through stopState: finished 0, cancelled 130, anything else 1', () => {
    for (const reason of STOP_REASONS) {
      const want = reason === 'cancelled' ? 130 : stopState(reason) === 'finished' ? 0 : 1;
      expect(exitCodeFor(outcome(reason), [], false), reason).toBe(want);
    }
  });

  it('an interrupt is 130, a pending approval 3, an error 1 even after a finished stop', () => {
    expect(exitCodeFor(outcome('plain_text'), [], true)).toBe(130);
    expect(exitCodeFor(outcome('plain_text'), ['req-1'], false)).toBe(3);
    expect(exitCodeFor({ ...outcome('agent_exit'), error: { name: 'E', message: 'x' } }, [], false)).toBe(1);
  });
});
