// `-p --resume ID | --continue`: a session that cannot be continued is refused in one line before anything boots
// (runTask refuses it too, for serve and the TUI; here the user would otherwise read a failed task's report).
import { resolveSession, SessionError, type SessionRequest } from '../../src/actors/agents/session-turn.js';
import { SessionLedger } from '../../src/store/sessions.js';
import { dataRoot, projectIdFor } from '../../src/store/paths.js';

/** The refusal line, or null when the turn may go on. Read-only: the store actor writes the ledger. */
export async function sessionRefusal(workspace: string, req: SessionRequest): Promise<string | null> {
  const ledger = new SessionLedger(dataRoot());
  try {
    await resolveSession({ readSession: (p, id) => ledger.read(p, id), listSessions: (p) => ledger.list(p) }, projectIdFor(workspace), req);
    return null;
  } catch (err) {
    if (err instanceof SessionError) return err.message;
    throw err;
  }
}
