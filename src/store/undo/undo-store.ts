// Undo points per workspace: a tree snapshot before each write delegation and turn, its end state, the list, the
// restore (which stops on files changed since) and pruning by age and size. Calls on one workspace are serialised.
import { promises as fsp } from 'node:fs';
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { realpathSync } from 'node:fs';
import type { Clock, TaskGroup } from '../../runtime/actor.js';
import { atomicWrite } from '../atomic-write.js';
import { sanitizeSegment } from '../data-paths.js';
import { isMissing } from '../errors.js';
import type { UndoEntry, UndoListItem, UndoOptions, UndoPointInput, UndoRestoreOptions, UndoRestoreResult } from '../types-undo.js';
import { ShadowRepo } from './shadow.js';
import { pruneShadow } from './prune.js';

export const DEFAULT_UNDO_OPTIONS: UndoOptions = { enabled: true, keepDays: 7, maxBytes: 1024 * 1024 * 1024 };
/** A prune pass runs at most this often per workspace (after a turn ends). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** The clock time of the last prune pass, beside the shadow repository (any process's). */
const PRUNED_AT = 'pruned-at';

export const undoRoot = (root: string): string => join(root, 'undo');

/** One shadow repository per real workspace path: readable name + sha256 of the path. */
export function workspaceKey(workspace: string): string {
  let real = resolve(workspace);
  try {
    real = realpathSync(real);
  } catch {
    // a workspace that vanished keeps the key of its path
  }
  const hash = nodeCrypto().createHash('sha256').update(real).digest('hex').slice(0, 12);
  return `${sanitizeSegment(basename(real), 40, 'root')}-${hash}`;
}

interface Workspace {
  repo: ShadowRepo;
  entries: string;
  chain: Promise<unknown>;
  /** Undefined until read from `pruned-at` (0: never). */
  prunedAt?: number;
}

export class UndoStore {
  private readonly spaces = new Map<string, Workspace>();

  constructor(
    private readonly root: string,
    private readonly opts: UndoOptions,
    private readonly clock: Clock,
    private readonly tasks?: TaskGroup,
    private readonly git?: string,
  ) {}

  get enabled(): boolean {
    return this.opts.enabled;
  }

  /** Snapshot now, before the delegation or turn runs: resolves once the tree and its entry are on disk. */
  point(input: UndoPointInput): Promise<UndoEntry> {
    return this.serial(input.workspace, async (ws) => this.record(ws, input, await ws.repo.snapshotTree()));
  }

  /** The delegation or turn ended: its end state is kept, so later changes to its files are seen as later. */
  async end(workspace: string, id: string): Promise<void> {
    const ws = await this.serial(workspace, async (w) => {
      const e = await this.read(w, id);
      if (e === null || e.after !== undefined) return null;
      await this.close(w, e, await w.repo.snapshotTree());
      return e.kind === 'turn' ? w : null;
    });
    // after a turn, at most hourly: a pass queued behind this call (never inside it: it would wait on itself). The
    // last pass's time is kept on disk, so a process per turn (`yagent -p`) does not list refs and count objects
    // (four git spawns) at every turn's end
    if (ws === null || !this.tasks) return;
    ws.prunedAt ??= await readStamp(join(ws.repo.dir, PRUNED_AT));
    const age = this.clock.now() - ws.prunedAt;
    if (age >= 0 && age < PRUNE_EVERY_MS) return;
    ws.prunedAt = this.clock.now();
    this.tasks.go('undo-prune', () => this.prune(workspace));
  }

  /** Newest first. Files of a point without an end (running, or its process died) are those changed until now. */
  list(workspace: string): Promise<UndoListItem[]> {
    return this.serial(workspace, async (ws) => {
      const all = await this.entries(ws);
      let now: string | null = null;
      const out: UndoListItem[] = [];
      for (const e of all) {
        let files = e.files;
        if (files === undefined) {
          now ??= await ws.repo.snapshotTree();
          files = (await ws.repo.changed(e.before, now)).map((c) => c.path);
        }
        const { files: _drop, ...rest } = e;
        out.push({ ...rest, files });
      }
      return out;
    });
  }

  /** Puts back the files the point's run changed, as they were before it; stops on any changed since it ended. */
  restore(workspace: string, id: string, o: UndoRestoreOptions = {}): Promise<UndoRestoreResult> {
    return this.serial(workspace, async (ws) => {
      const e = await this.find(ws, id);
      if (e === null) return { ok: false, id, reason: 'not_found', files: [], message: `no undo point "${id}" in ${ws.repo.workspace}` };
      const now = await ws.repo.snapshotTree();
      const changes = await ws.repo.changed(e.before, e.after ?? now);
      if (changes.length === 0) return { ok: false, id: e.id, reason: 'nothing', files: [], message: `${e.id} changed no file: nothing to undo` };
      const paths = changes.map((c) => c.path);
      if (e.after !== undefined) {
        const touched = new Set(paths);
        const since = (await ws.repo.changed(e.after, now)).map((c) => c.path).filter((p) => touched.has(p));
        if (since.length > 0) {
          return { ok: false, id: e.id, reason: 'changed_since', files: since, message: `changed after ${e.id} ended, not overwritten: ${since.join(', ')}` };
        }
      }
      const links = await ws.repo.gitlinks(e.before);
      const write = changes.filter((c) => c.status !== 'A' && !links.has(c.path)).map((c) => c.path);
      const remove = changes.filter((c) => c.status === 'A').map((c) => c.path);
      const diff = await ws.repo.diff(now, e.before, paths);
      if (o.dryRun === true) return { ok: true, id: e.id, dryRun: true, restored: write, removed: remove, diff };
      // the state before the restore is itself an undo point: undo can be undone
      const u = await this.record(ws, { workspace, kind: 'undo', agent: 'user', taskId: e.taskId, label: `undo of ${e.id}` }, now);
      for (const p of remove) await removeInside(ws.repo.workspace, p);
      await ws.repo.checkout(e.before, write);
      await this.close(ws, u, await ws.repo.snapshotTree());
      await this.write(ws, { ...e, undoneBy: u.id });
      return { ok: true, id: e.id, dryRun: false, restored: write, removed: remove, diff, undoId: u.id };
    });
  }

  /** Drops points older than keep_days, then the oldest until the objects fit in max_mb; orphans go too. */
  prune(workspace: string): Promise<void> {
    return this.serial(workspace, async (ws) => {
      const all = await this.entries(ws);
      const drop = async (e: UndoEntry): Promise<void> => {
        await ws.repo.unpin(e.id);
        await fsp.rm(join(ws.entries, `${e.id}.json`), { force: true });
      };
      const now = this.clock.now();
      await pruneShadow(ws.repo, all, this.opts, now, drop);
      await atomicWrite(join(ws.repo.dir, PRUNED_AT), `${now}\n`);
    });
  }

  private async record(ws: Workspace, input: UndoPointInput, tree: string): Promise<UndoEntry> {
    const id = await this.newId(ws, input.kind);
    await ws.repo.pin(id, 'before', tree);
    const e: UndoEntry = {
      id,
      kind: input.kind,
      agent: input.agent,
      taskId: input.taskId,
      ...(input.callId !== undefined ? { callId: input.callId } : {}),
      ...(input.label !== undefined ? { label: input.label.replace(/\s+/g, ' ').slice(0, 200) } : {}),
      time: this.clock.now(),
      workspace: ws.repo.workspace,
      before: tree,
    };
    await this.write(ws, e);
    return e;
  }

  private async close(ws: Workspace, e: UndoEntry, tree: string): Promise<void> {
    await ws.repo.pin(e.id, 'after', tree);
    const files = (await ws.repo.changed(e.before, tree)).map((c) => c.path);
    await this.write(ws, { ...e, after: tree, endedAt: this.clock.now(), files });
  }

  private write(ws: Workspace, e: UndoEntry & { files?: string[] }): Promise<void> {
    return atomicWrite(join(ws.entries, `${e.id}.json`), `${JSON.stringify(e)}\n`);
  }

  private async read(ws: Workspace, id: string): Promise<(UndoEntry & { files?: string[] }) | null> {
    if (!/^[a-z]-[a-z0-9]+$/.test(id)) return null;
    const text = await fsp.readFile(join(ws.entries, `${id}.json`), 'utf8').catch((e: unknown) => {
      if (isMissing(e)) return null;
      throw e;
    });
    return text === null ? null : (JSON.parse(text) as UndoEntry & { files?: string[] });
  }

  /** By id, else the newest point of that delegate_* call id. */
  private async find(ws: Workspace, id: string): Promise<UndoEntry | null> {
    return (await this.read(ws, id)) ?? (await this.entries(ws)).find((e) => e.callId === id) ?? null;
  }

  /** Every entry, newest first (a torn or foreign file is skipped: the entry files are written atomically). */
  private async entries(ws: Workspace): Promise<(UndoEntry & { files?: string[] })[]> {
    const names = await fsp.readdir(ws.entries).catch((e: unknown) => {
      if (isMissing(e)) return [] as string[];
      throw e;
    });
    const out: (UndoEntry & { files?: string[] })[] = [];
    for (const n of names) {
      if (!n.endsWith('.json')) continue;
      const e = await this.read(ws, n.slice(0, -5));
      if (e !== null) out.push(e);
    }
    return out.sort((a, b) => b.time - a.time || b.id.localeCompare(a.id));
  }

  private async newId(ws: Workspace, kind: UndoEntry['kind']): Promise<string> {
    for (;;) {
      const id = `${kind[0]}-${nodeCrypto().randomBytes(4).readUInt32BE(0).toString(36).slice(0, 6)}`;
      if ((await this.read(ws, id)) === null) return id;
    }
  }

  /** Resolves once every call on every workspace has ended (shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.spaces.values()].map((w) => w.chain));
  }

  private serial<T>(workspace: string, fn: (ws: Workspace) => Promise<T>): Promise<T> {
    const key = workspaceKey(workspace);
    let ws = this.spaces.get(key);
    if (!ws) {
      const dir = join(undoRoot(this.root), key);
      ws = { repo: new ShadowRepo(dir, resolve(workspace), this.git), entries: join(dir, 'entries'), chain: Promise.resolve() };
      this.spaces.set(key, ws);
    }
    const w = ws;
    const run = w.chain.then(() => fn(w));
    w.chain = run.catch(() => undefined); // the chain goes on; this call's caller gets the error
    return run;
  }
}

/** A prune pass's time from its file; 0 when there is none, it cannot be read or does not parse. */
async function readStamp(path: string): Promise<number> {
  const text = await fsp.readFile(path, 'utf8').catch(() => ''); // unreadable: a pass runs (and rewrites it)
  const n = Number(text.trim());
  return Number.isFinite(n) ? n : 0;
}

/** Removes a file the run added, and the directories it leaves empty, never outside the workspace. */
async function removeInside(workspace: string, path: string): Promise<void> {
  const abs = resolve(workspace, path);
  const rel = relative(workspace, abs);
  if (rel === '' || rel.startsWith('..') || rel.includes(`..${sep}`)) return;
  await fsp.rm(abs, { force: true });
  for (let d = dirname(abs); d !== workspace && d.startsWith(workspace + sep); d = dirname(d)) {
    const left = await fsp.readdir(d).catch(() => ['?']); // unreadable or gone: stop climbing
    if (left.length > 0) return;
    await fsp.rmdir(d).catch(() => undefined); // raced by a new file: it stays, which is right
  }
}
