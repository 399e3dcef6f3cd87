// Ctrl-T: the supervision tree as a dialog; Up/Down select, `p` pauses/continues one agent, `c` cancels the task.
// A per-actor pause is part of the snapshot every client reads (`paused`), so a reopened tree, another client's
// tree, the sidebar and `attach ps` all say `paused`; the key line offers only the keys that act on the selected row.
import type { TreeNode } from '../host/types.js';
import type { TreeHost } from './parts.js';

export interface TreeRow {
  /** The actor's full supervision name (what the Host's per-actor pause matches). */
  name: string;
  depth: number;
  state: string;
  paused: boolean;
  /** The task whose subtree holds the row (`task:<id>` above it), null outside every task. */
  task: string | null;
  /** An agent of a task (the Director or a delegation): what `p` can pause. */
  agent: boolean;
  /** A parallel writer's own git worktree (its branch). */
  worktree?: string;
}

/** Depth-first rows of the live tree (stopped actors left out). */
export function treeRows(root: TreeNode): TreeRow[] {
  const out: TreeRow[] = [];
  const walk = (n: TreeNode, depth: number, task: string | null): void => {
    if (n.state === 'stopped') return;
    const own = /^task:(.+)$/.exec(n.name)?.[1];
    const agent = task !== null && own === undefined && n.kind !== 'supervisor';
    out.push({ name: n.name, depth, state: n.state, paused: n.paused === true, task: own ?? task, agent, ...(n.worktree !== undefined ? { worktree: n.worktree } : {}) });
    n.children.forEach((c) => walk(c, depth + 1, own ?? task));
  };
  walk(root, 0, null);
  return out;
}

/** A delegation shows as its agent (`delegation:<call>:coding` → `coding`); the call id is noise here. */
const shortName = (name: string): string => name.replace(/^delegation:[^:]*:/, '');

const REFRESH_MS = 250;

export class TreeView {
  rows: TreeRow[] = [];
  selected = 0;
  /** Until the first snapshot arrives, then selection starts on the first agent. */
  private placed = false;
  private lastFetch = -Infinity;

  constructor(private readonly app: TreeHost) {}

  /** Opens the dialog; every later frame (one per burst of events) refetches the tree, at most every 250 ms. */
  open(): void {
    this.app.info = { kind: 'info', data: this.data(), pick: (key) => this.onKey(key), refresh: () => this.refresh() };
    this.refresh();
  }

  refresh(force = false): void {
    const now = this.app.clock.now();
    if (!force && now - this.lastFetch < REFRESH_MS) return;
    this.lastFetch = now;
    this.app.tasks.go('tui-tree-view', async () => {
      const root = await this.app.backend.tree();
      const name = this.rows[this.selected]?.name;
      this.rows = root ? treeRows(root) : [];
      const kept = this.rows.findIndex((r) => r.name === name);
      if (!this.placed && this.rows.length > 0) {
        // selection starts on the first agent of this client's task (else any agent): what `p` acts on
        const mine = this.rows.findIndex((r) => r.agent && r.task === this.app.taskId);
        this.selected = Math.max(0, mine >= 0 ? mine : this.rows.findIndex((r) => r.agent));
        this.placed = true;
      } else this.selected = kept >= 0 ? kept : Math.min(this.selected, Math.max(0, this.rows.length - 1));
      this.redraw();
    });
  }

  /** True closes the dialog (Esc, Ctrl-C: the app then cancels as usual). */
  onKey(key: string): boolean {
    if (key === 'escape' || key === '\x1b' || key === '\x03' || key === 'C-c') return true;
    if (key === 'up') this.selected = Math.max(0, this.selected - 1);
    else if (key === 'down') this.selected = Math.min(Math.max(0, this.rows.length - 1), this.selected + 1);
    else if (key === 'p' && this.pausable()) this.togglePause();
    else if (key === 'c' && this.running()) this.app.cancelOrWarn();
    this.redraw();
    return false;
  }

  private running(): boolean {
    return this.app.taskId !== null && this.app.run !== 'idle';
  }

  /** The selected row is an agent of this client's running task. */
  private pausable(): TreeRow | null {
    const row = this.rows[this.selected];
    return row && row.agent && this.running() && row.task === this.app.taskId ? row : null;
  }

  private togglePause(): void {
    const row = this.pausable();
    const taskId = this.app.taskId;
    if (!row || taskId === null) return;
    const pause = !row.paused;
    this.app.tasks.go('tui-pause-actor', async () => {
      const reached = await this.app.backend.pauseActor(taskId, row.name, pause);
      if (reached.length === 0) this.app.notice = `${shortName(row.name)} has ended`;
      for (const r of this.rows) if (reached.includes(r.name)) r.paused = pause;
      this.redraw();
      this.refresh(true);
    });
  }

  private redraw(): void {
    if (this.app.info?.refresh) this.app.info.data = this.data();
    this.app.frames.mark();
  }

  private data(): { title: string; body: string; keys: string; focus: number } {
    const body = this.rows.length
      ? this.rows.map((r, i) => `${i === this.selected ? '▸' : ' '} ${'  '.repeat(Math.min(r.depth, 6))}${shortName(r.name)} ${r.paused ? 'paused' : r.state}${r.worktree !== undefined ? ` ⎇ ${r.worktree}` : ''}`).join('\n')
      : '(no actors)';
    const row = this.pausable();
    const keys = ['↑↓ select', row ? `p ${row.paused ? 'continues' : 'pauses'} ${shortName(row.name)}` : '', this.running() ? 'c cancels the task' : '', 'Esc closes'];
    return { title: 'delegation tree', body, keys: keys.filter((k) => k !== '').join(' · '), focus: this.selected };
  }
}
