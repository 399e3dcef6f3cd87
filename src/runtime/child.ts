// What a supervisor needs from a child: an exit it can await, a stop it can ask for, a snapshot.
import type { RestartType } from './actor.js';
import type { SerializedError } from './protocol/index.js';

export interface Exit {
  /** Normal = finished or stopped on request; transient children restart only when this is false. */
  normal: boolean;
  /** Human-readable reason: normal | shutdown | crashed: … | out_of_memory | exited with code N | … */
  reason: string;
  value?: unknown;
  error?: SerializedError;
}

export type ChildState = 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'failed';

export interface TreeNode {
  name: string;
  kind: string;
  state: ChildState;
  ageMs: number;
  restarts: number;
  mailboxDepth: number;
  drops: number;
  /** Paused on its own (a per-actor pause; the task's pause is the task's state). */
  paused?: boolean;
  children: TreeNode[];
}

export interface ChildHandle {
  readonly exited: Promise<Exit>;
  /** Asks politely, then forces after shutdownMs; resolves once exited. Idempotent: asked again, it waits for the
   *  same exit (terminateChild asks at once and again from its queue). */
  stop(reason: string, shutdownMs: number): Promise<void>;
  /** Optional details for the tree snapshot (kind, mailbox depth, drops, children). */
  describe?(): Partial<Pick<TreeNode, 'kind' | 'mailboxDepth' | 'drops' | 'children' | 'paused'>>;
}

export interface ChildSpec {
  id: string;
  kind?: string;
  start: () => Promise<ChildHandle>;
  restart: RestartType;
  shutdownMs: number;
}
