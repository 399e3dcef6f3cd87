// `-p --resume ID | --continue`: a session that cannot be continued is refused in one line before anything boots
// (runTask refuses it too, for serve and the TUI; here the user would otherwise read a failed task's report).
import { resolveSession, SessionError, type SessionRequest } from '../../src/actors/agents/session-turn.js';
import { SessionLedger } from '../../src/store/sessions.js';
import { dataRoot, projectIdFor } from '../../src/store/data-paths.js';

/** The session the turn continues (its id goes into stream-json's first line), or the refusal line. Read-only:
 *  the store actor writes the ledger. */
export async function checkSession(workspace: string, req: SessionRequest): Promise<{ sessionId: string } | { refusal: string }> {
  const ledger = new SessionLedger(dataRoot());
  try {
    const s = await resolveSession({ readSession: (p, id) => ledger.read(p, id), listSessions: (p) => ledger.list(p) }, projectIdFor(workspace), req);
    return { sessionId: s?.sessionId ?? '' };
  } catch (err) {
    if (err instanceof SessionError) return { refusal: err.message };
    throw err;
  }
}
