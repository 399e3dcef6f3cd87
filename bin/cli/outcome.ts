// Maps a task's outcome to the documented exit code, through the store's one stop classification.
import { stopState } from '../../src/store/rollout/stop.js';
import type { TaskOutcome } from '../host/types.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export function exitCodeFor(outcome: TaskOutcome, needsApproval: readonly string[], interrupted: boolean): ExitCode {
  if (interrupted || outcome.stopReason === 'cancelled') return EXIT.cancelled;
  if (needsApproval.length > 0) return EXIT.needsApproval;
  if (outcome.error) return EXIT.error;
  const state = stopState(outcome.stopReason);
  switch (state) {
    case 'finished':
      return EXIT.ok;
    case 'resumable': // paused (cancelled was taken above): the run did not finish here
    case 'failed':
      return EXIT.error;
  }
}
