// Maps a task's outcome to the documented exit code, through the store's one stop classification.
import { stopState } from '../../src/store/rollout/stop.js';
import type { TaskOutcome } from '../host/types.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** Cancelled 130; a failure is 1 whatever happened before it; 3 only for a run that finished but was denied an
 *  approval nobody could give (a question is not an approval: the model was told to decide). */
export function exitCodeFor(outcome: TaskOutcome, needsApproval: readonly string[], interrupted: boolean): ExitCode {
  if (interrupted || outcome.stopReason === 'cancelled') return EXIT.cancelled;
  if (outcome.error) return EXIT.error;
  const state = stopState(outcome.stopReason);
  switch (state) {
    case 'finished':
      return needsApproval.length > 0 ? EXIT.needsApproval : EXIT.ok;
    case 'resumable': // paused (cancelled was taken above): the run did not finish here
    case 'failed':
      return EXIT.error;
  }
}
