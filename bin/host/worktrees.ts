// Which git worktree each parallel writer uses (issue 26): learnt from `delegation_worktree` events, shown on the
// writer's row of every tree snapshot (TUI Ctrl-T, `attach ps`) until its merge.
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { TreeNode } from './types.js';

export class WorktreeBook {
  /** Actor name (`delegation:<call>:<agent>`) → its worktree's branch. */
  private readonly byActor = new Map<string, string>();

  onEnvelope(env: Envelope): void {
    const p = env.payload;
    if (p.type !== 'delegation_worktree') return;
    const name = `delegation:${p.callId}:${p.child}`;
    if (p.merged === undefined) this.byActor.set(name, p.branch);
    else this.byActor.delete(name);
  }

  /** The snapshot with each writer's worktree on its row. */
  decorate<T extends TreeNode>(node: T): T {
    const branch = this.byActor.get(node.name);
    return { ...node, ...(branch !== undefined ? { worktree: branch } : {}), children: node.children.map((c) => this.decorate(c)) };
  }
}
