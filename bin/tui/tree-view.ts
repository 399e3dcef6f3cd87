// Ctrl-T: the supervision tree as a dialog; Up/Down select, `p` pauses/continues one actor, `c` cancels the task.
import type { TreeNode } from '../host/types.js';
import type { TreeHost } from './parts.js';

export interface TreeRow {
  /** The actor's full supervision name (what the Host's per-actor pause matches). */
  name: string;
  depth: number;
  state: string;
}

/** Depth-first rows of the live tree (stopped actors left out). */
export function treeRows(root: TreeNode): TreeRow[] {
  const out: TreeRow[] = [];
  const walk = (n: TreeNode, depth: number): void => {
    if (n.state === 'stopped') return;
    out.push({ name: n.name, depth, state: n.state });
    n.children.forEach((c) => walk(c, depth + 1));
  };
  walk(root, 0);
  return out;
}

/** A delegation shows as its agent (`delegation:<call>:coding` → `coding`); the call id is noise here. */
const shortName = (name: string): string => name.replace(/^delegation:[^:]*:/, '');

const REFRESH_MS = 250;

export class TreeView {
  rows: TreeRow[] = [];
  selected = 0;
  /** Actors this view paused (the snapshot's state does not carry a per-actor pause). */
  readonly paused = new Set<string>();
  private lastFetch = -Infinity;

  constructor(private readonly app: TreeHost) {}

  /** Opens the dialog; every later frame (one per burst of events) refetches the tree, at most every 250 ms. */
  open(): void {
    this.app.info = { kind: 'info', data: this.data(), pick: (key) => this.onKey(key), refresh: () => this.refresh() };
    this.refresh();
  }

  refresh(): void {
    const now = this.app.clock.now();
    if (now - this.lastFetch < REFRESH_MS) return;
    this.lastFetch = now;
    this.app.tasks.go('tui-tree-view', async () => {
      const root = await this.app.backend.tree();
      this.rows = root ? treeRows(root) : [];
      this.selected = Math.min(this.selected, Math.max(0, this.rows.length - 1));
      this.redraw();
    });
  }

  /** True closes the dialog (Esc, Ctrl-C: the app then cancels as usual). */
  onKey(key: string): boolean {
    if (key === 'escape' || key === '\x1b' || key === '\x03' || key === 'C-c') return true;
    if (key === 'up') this.selected = Math.max(0, this.selected - 1);
    else if (key === 'down') this.selected = Math.min(Math.max(0, this.rows.length - 1), this.selected + 1);
    else if (key === 'p') this.togglePause();
    else if (key === 'c') this.app.cancelOrWarn();
    this.redraw();
    return false;
  }

  private togglePause(): void {
    const row = this.rows[this.selected];
    const taskId = this.app.taskId;
    if (!row || taskId === null) return;
    const pause = !this.paused.has(row.name);
    this.app.tasks.go('tui-pause-actor', async () => {
      const reached = await this.app.backend.pauseActor(taskId, row.name, pause);
      if (reached.length === 0) this.app.notice = `${shortName(row.name)} is not an actor of this task`;
      else
        for (const n of reached) {
          if (pause) this.paused.add(n);
          else this.paused.delete(n);
        }
      this.redraw();
    });
  }

  private redraw(): void {
    if (this.app.info?.refresh) this.app.info.data = this.data();
    this.app.frames.mark();
  }

  private data(): { title: string; body: string; keys: string } {
    const body = this.rows.length
      ? this.rows.map((r, i) => `${i === this.selected ? '▸' : ' '} ${'  '.repeat(Math.min(r.depth, 6))}${shortName(r.name)} ${this.paused.has(r.name) ? 'paused' : r.state}`).join('\n')
      : '(no actors)';
    return { title: 'delegation tree', body, keys: '↑↓ select · p pause/continue · c cancel task · Esc closes' };
  }
}
