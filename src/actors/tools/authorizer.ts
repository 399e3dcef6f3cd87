// Authorizer: asks the user to approve a guarded call. Production rides the runtime's critical-lane
// round trip (user_help_needed / user_help_response); nobody to ask ⇒ `unavailable` (fail closed).
import type { ActorContext } from '../../runtime/actor.js';
import type { GrantScope } from './grants.js';

export interface AuthRequest {
  agent: string;
  tool: string;
  question: string;
  detail: string;
}

export type AuthDecision =
  | { decision: 'approved'; scope: GrantScope }
  | { decision: 'denied'; reason: string }
  | { decision: 'unavailable'; reason: string };

export type Authorizer = (req: AuthRequest, signal: AbortSignal) => Promise<AuthDecision>;

/** Wires authorization to ActorContext.requestUserHelp; NO_RESPONDER (headless) becomes `unavailable`. */
export function actorAuthorizer(ctx: Pick<ActorContext, 'requestUserHelp'>): Authorizer {
  return async (req, signal) => {
    try {
      const res = await ctx.requestUserHelp(
        { agent: req.agent, kind: 'authorization', question: req.question, tool: req.tool, detail: req.detail },
        signal,
      );
      return res.approved
        ? { decision: 'approved', scope: res.scope }
        : { decision: 'denied', reason: res.answer ?? 'the user declined' };
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as { code?: unknown }).code;
      const message = err instanceof Error ? err.message : String(err);
      return { decision: 'unavailable', reason: code === 'NO_RESPONDER' ? 'nobody is there to approve (headless run)' : message };
    }
  };
}

/** For runs with no client at all: every guarded call fails closed. */
export const headlessAuthorizer: Authorizer = () =>
  Promise.resolve({ decision: 'unavailable', reason: 'nobody is there to approve (headless run)' });
