// One workspace's shadow repository: GIT_DIR under the data root, the workspace as GIT_WORK_TREE, its own index.
// Never the user's .git, index, stash or branches; every call through runSafeGit (no hooks, filters, keys).
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { runSafeGitResult, safeGitSequence, type SafeGitOptions, type SafeGitResult } from '../../runtime/safe-git.js';
import { atomicWrite, PRIVATE_DIR_MODE } from '../atomic-write.js';
import { isMissing } from '../errors.js';

/** A big repository's first `git add -A` hashes every file: minutes, not the 2 s of the identity read. */
export const UNDO_GIT_TIMEOUT_MS = 120_000;
/** An index.lock older than the longest git call is a dead process's (kill -9 mid-snapshot): removed. */
const STALE_LOCK_MS = UNDO_GIT_TIMEOUT_MS + 10_000;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** Shadow-only settings, written once into its config: no auto gc (pruning is ours), no reflogs, no line-ending rewrite. */
const SHADOW_CONFIG: readonly (readonly [string, string])[] = [
  ['gc.auto', '0'],
  ['core.logAllRefUpdates', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.quotePath', 'false'],
  ['core.sharedRepository', '0600'],
  // the next snapshot re-reads only directories whose mtime moved (a big tree's scan is most of an incremental one)
  ['core.untrackedCache', 'true'],
];

export class GitFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitFailed';
  }
}

export interface ChangedPath {
  path: string;
  /** A added, D deleted, M modified (type changes count as M). */
  status: 'A' | 'D' | 'M';
}

export class ShadowRepo {
  readonly gitDir: string;
  private readonly index: string;
  private ready = false;

  constructor(
    readonly dir: string,
    readonly workspace: string,
    private readonly git?: string,
  ) {
    this.gitDir = join(dir, 'git');
    this.index = join(this.gitDir, 'yagent-index');
  }

  /** git in the workspace with the shadow's GIT_DIR; `index` overrides the shadow index (a restore's scratch index). */
  async run(args: string[], index = this.index, maxBuffer = 64 << 20, bare = false): Promise<string> {
    const r: SafeGitResult = await runSafeGitResult(bare ? this.dir : this.workspace, args, { ...this.options(index, maxBuffer), ...(bare ? { gitEnv: {} } : {}) });
    if (!r.ok) throw new GitFailed(r.error);
    return r.stdout;
  }

  private options(index: string, maxBuffer: number): SafeGitOptions {
    return {
      timeoutMs: UNDO_GIT_TIMEOUT_MS,
      maxBuffer,
      ...(this.git !== undefined ? { git: this.git } : {}),
      gitEnv: { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.workspace, GIT_INDEX_FILE: index },
      // the config listing of the last process, kept while no config file changed: the point at a turn's start
      // spawns add and write-tree only
      listingFile: join(this.dir, 'config-listing.json'),
    };
  }

  /** Creates the repository on first use (0700/0600: `core.sharedRepository=0600` whatever the umask). */
  async open(): Promise<void> {
    if (this.ready) return;
    await fsp.mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const fresh = !(await exists(join(this.gitDir, 'HEAD')));
    if (fresh) {
      // --template= : no sample hooks or info files copied in
      await this.run(['init', '-q', '--bare', '--template=', '--shared=0600', this.gitDir], this.index, 1 << 20, true);
      for (const [k, v] of SHADOW_CONFIG) await this.run(['config', k, v]);
    }
    await this.removeStaleLock();
    this.ready = true;
  }

  /** Tracked and untracked files, `.gitignore` (and the user's `.git/info/exclude`) respected → a tree id. */
  async snapshotTree(): Promise<string> {
    await this.open();
    await this.syncExcludes();
    // --ignore-errors: an unreadable file is left out, not the whole snapshot
    // one config listing for both commands: an incremental snapshot is mostly process starts
    const rs = await safeGitSequence(this.workspace, [['add', '-A', '--ignore-errors', '--', '.'], ['write-tree']], this.options(this.index, 64 << 20));
    const bad = rs.find((r) => !r.ok);
    if (bad !== undefined && !bad.ok) throw new GitFailed(bad.error);
    const last = rs.at(-1);
    return last?.ok === true && rs.length === 2 ? last.stdout.trim() : '';
  }

  /** Keeps a tree reachable (so pruning never drops it) under `refs/undo/<id>/<name>`. */
  async pin(id: string, name: 'before' | 'after', tree: string): Promise<void> {
    // a loose ref is a file holding the object id: written like every other file under the data root
    if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new GitFailed(`not an object id: ${tree}`);
    await atomicWrite(join(this.gitDir, 'refs', 'undo', id, name), `${tree}\n`);
  }

  async unpin(id: string): Promise<void> {
    const refs = (await this.run(['for-each-ref', '--format=%(refname)', `refs/undo/${id}/`])).split('\n').filter(Boolean);
    for (const ref of refs) await this.run(['update-ref', '-d', ref]);
  }

  /** Ids that have a pinned tree (an id without its entry file is a crash between the two writes). */
  async pinnedIds(): Promise<Set<string>> {
    const out = await this.run(['for-each-ref', '--format=%(refname)', 'refs/undo/']);
    return new Set(out.split('\n').filter(Boolean).map((r) => r.split('/')[2] ?? ''));
  }

  async changed(from: string, to: string): Promise<ChangedPath[]> {
    if (from === to) return [];
    const out = await this.run(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from || EMPTY_TREE, to || EMPTY_TREE]);
    const parts = out.split('\0');
    const list: ChangedPath[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const s = parts[i] ?? '';
      const path = parts[i + 1] ?? '';
      if (path === '') continue;
      list.push({ path, status: s === 'A' ? 'A' : s === 'D' ? 'D' : 'M' });
    }
    return list;
  }

  /** The patch from tree `from` to tree `to` over `paths` (the dry run's diff). */
  async diff(from: string, to: string, paths: string[]): Promise<string> {
    if (paths.length === 0) return '';
    return this.run(['diff-tree', '-r', '-p', '--no-ext-diff', '--no-textconv', '--no-renames', from, to, '--', ...paths]);
  }

  /** Paths of `tree` that are gitlinks (nested repositories): never written back. */
  async gitlinks(tree: string): Promise<Set<string>> {
    const out = await this.run(['ls-tree', '-r', '-z', tree]);
    const links = new Set<string>();
    for (const rec of out.split('\0')) if (rec.startsWith('160000 ')) links.add(rec.slice(rec.indexOf('\t') + 1));
    return links;
  }

  /** Writes `paths` as they are in `tree` into the workspace (modes and links included), through a scratch index. */
  async checkout(tree: string, paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    const scratch = join(this.gitDir, `restore-index-${process.pid}`);
    try {
      await this.run(['read-tree', tree], scratch);
      for (let i = 0; i < paths.length; i += 500) await this.run(['checkout-index', '-f', '-q', '--', ...paths.slice(i, i + 500)], scratch);
    } finally {
      await fsp.rm(scratch, { force: true });
    }
  }

  /** Objects on disk in bytes (loose and packed). */
  async sizeBytes(): Promise<number> {
    const out = await this.run(['count-objects', '-v']);
    const kib = (k: string): number => Number(/^(\S+): (\d+)$/m.exec(out.split('\n').find((l) => l.startsWith(`${k}:`)) ?? '')?.[2] ?? 0);
    return (kib('size') + kib('size-pack')) * 1024;
  }

  /** Drops what no pinned tree (or the shadow index) reaches, then packs the rest. */
  async compact(): Promise<void> {
    await this.run(['prune', '--expire=now']);
    await this.run(['repack', '-a', '-d', '-q']);
  }

  /** The user's `.git/info/exclude` applies to snapshots too (copied when it changes). */
  private async syncExcludes(): Promise<void> {
    const theirs = await fsp.readFile(join(this.workspace, '.git', 'info', 'exclude'), 'utf8').catch((e: unknown) => {
      if (isMissing(e) || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return '';
      throw e;
    });
    const mine = join(this.gitDir, 'info', 'exclude');
    const current = await fsp.readFile(mine, 'utf8').catch((e: unknown) => {
      if (isMissing(e)) return null;
      throw e;
    });
    if (current !== theirs) await atomicWrite(mine, theirs);
  }

  /** Removes the shadow index's lock left by a dead process (older than any live git call could be). */
  private async removeStaleLock(olderThanMs = STALE_LOCK_MS): Promise<boolean> {
    const lock = `${this.index}.lock`;
    const st = await fsp.stat(lock).catch((e: unknown) => {
      if (isMissing(e)) return null;
      throw e;
    });
    if (st === null || Date.now() - st.mtimeMs < olderThanMs) return false;
    await fsp.rm(lock, { force: true });
    return true;
  }
}

async function exists(path: string): Promise<boolean> {
  return fsp.stat(path).then(
    () => true,
    (e: unknown) => {
      if (isMissing(e)) return false;
      throw e;
    },
  );
}
