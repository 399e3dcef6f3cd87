// Maps a task's outcome to the documented exit code.
import type { TaskOutcome } from '../host/types.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export function exitCodeFor(outcome: TaskOutcome, needsApproval: readonly string[], interrupted: boolean): ExitCode {
  if (interrupted || outcome.stopReason === 'cancelled') return EXIT.cancelled;
  if (needsApproval.length > 0) return EXIT.needsApproval;
  if (outcome.error) return EXIT.error;
  switch (outcome.stopReason) {
    case 'plain_text':
    case 'agent_exit':
      return EXIT.ok;
    case 'paused':
    case 'idle_timeout':
    case 'total_timeout':
    case 'max_steps':
    case 'llm_error':
    case 'circuit_breaker_open':
    case 'panic':
    case 'unaccounted':
      return EXIT.error;
  }
}
