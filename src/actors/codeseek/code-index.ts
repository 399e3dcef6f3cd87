// One workspace's index: per-file facts keyed by content hash, refreshed incrementally (a file whose size and mtime
// are unchanged is not read; one whose content hash is unchanged is not parsed), with the name maps derived lazily.
import type { Stats } from 'node:fs';
import { sep } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import { indexable, lstatSafe, readFileAt } from './disk.js';
import type { CacheImage, CallRef, DeclRef, FileEntry, Progress, RefreshReport } from './code-index-types.js';
import { FACTS_VERSION, type CallSite, type FileFacts } from './facts.js';
import { listSourceFiles } from './files.js';
import { ParsePipeline, type ParseOffload } from './parse-pipeline.js';
import { langOf } from './queries.js';
import { Resolver, type Resolution } from './resolve.js';
import { ChangeWatch } from './watch.js';

export { MAX_FILE_BYTES } from './disk.js';
export type { CacheImage, CallRef, DeclRef, FileEntry, Progress, RefreshReport } from './code-index-types.js';

/** A refresh that parses nothing yields to queries only after this long (a pass over unchanged files is ~20 ms). */
const YIELD_MS = 10;
/** Up to this many changed files patch the name maps; more rebuild them. */
const PATCH_MAX = 64;
/** A file changed this close to its last read may change again within the same mtime: hashed again (git's racy rule). */
const RACY_MS = 2_000;

export class CodeIndex {
  private readonly files = new Map<string, FileEntry>();
  private cachedFacts = new Map<string, FileFacts>();
  private derived: Maps | null = null;
  /** Files changed since the maps were built, with their facts before (undefined: new). */
  private readonly pending = new Map<string, FileFacts | undefined>();
  private progress: Progress = { indexed: 0, total: 0, building: false };
  /** A whole pass completed (or a cache of one was adopted). */
  private built = false;
  /** Bumped by every change of the entries: the cache is saved when it moved. */
  generation = 0;

  private readonly base: string;
  /** Directory watches naming the files that may have changed (watch.ts); null: every refresh stats every known file. */
  private readonly watch: ChangeWatch | null;

  /** A build of many files also parses on a second thread (parse-pipeline.ts); absent: one thread. */
  private readonly offload: ParseOffload | undefined;

  /** `watch`: directory watches name the changed files; `offload`: a second parse thread for builds. */
  constructor(readonly root: string, private readonly now: () => number = Date.now, opts: { watch?: boolean; offload?: ParseOffload } = {}) {
    this.offload = opts.offload;
    this.base = root.endsWith(sep) || root.endsWith('/') ? root : root + sep;
    this.watch = opts.watch === true ? new ChangeWatch(this.base.slice(0, -1)) : null;
  }

  /** Drops the directory watches (a workspace no longer asked about). */
  close(): void {
    this.watch?.close();
  }

  /** Building = no whole pass has completed yet (a later refresh re-checks an index that is already whole). */
  status(): Progress {
    const building = this.progress.building && !this.built;
    return { building, indexed: building ? this.progress.indexed : this.files.size, total: building ? this.progress.total : this.files.size };
  }

  entries(): IterableIterator<FileEntry> {
    return this.files.values();
  }

  file(path: string): FileEntry | undefined {
    return this.files.get(path);
  }

  /** Seeds entries and facts from a cache image of an earlier run (checked again by the next refresh). */
  adopt(image: CacheImage): boolean {
    if (image.v !== FACTS_VERSION) return false;
    for (const [hash, facts] of Object.entries(image.facts)) this.cachedFacts.set(hash, facts);
    for (const [path, hash, size, mtimeMs] of image.files) {
      const facts = this.cachedFacts.get(hash);
      if (facts !== undefined && !this.files.has(path)) this.files.set(path, { path, hash, size, mtimeMs, readAt: 0, facts });
    }
    this.changed();
    this.built = true;
    return true;
  }

  image(): CacheImage {
    const facts: Record<string, FileFacts> = {};
    const files: CacheImage['files'] = [];
    for (const e of this.files.values()) {
      files.push([e.path, e.hash, e.size, e.mtimeMs]);
      facts[e.hash] = e.facts;
    }
    return { v: FACTS_VERSION, files, facts };
  }

  /** Brings the index in line with the disk: new and changed files parsed, removed ones dropped. Yields to the event
   *  loop every `batch` files so that queries are answered from what is indexed while a first build runs. */
  async refresh(opts: { signal?: AbortSignal; batch?: number; paths?: string[] } = {}): Promise<RefreshReport> {
    const t0 = performance.now();
    const report: RefreshReport = { files: 0, parsed: 0, hashed: 0, reused: 0, removed: 0, checked: 0, ms: 0 };
    // building from the first moment: a question during the listing is told so (the total is the last one known)
    this.progress = { indexed: 0, total: this.files.size, building: true };
    let pipe: ParsePipeline | undefined;
    try {
      const listing = opts.paths !== undefined ? Promise.resolve(opts.paths) : listSourceFiles(this.root);
      // while git lists the files, stat the ones already known: a refresh of a mostly unchanged tree is these stats;
      // only the files that moved are kept (with their stat), so 5,000 Stats never outlive the loop. With trusted
      // watches, only the files they named are stat'ed, after the listing (whose wait delivers the pending events).
      let moved = opts.paths === undefined ? this.movedUnwatched(report) : undefined;
      const paths = await listing;
      if (opts.paths === undefined) moved = this.movedWatched(paths, moved, report);
      report.files = paths.length;
      this.progress.total = paths.length;
      pipe = new ParsePipeline(opts.paths === undefined ? this.offload : undefined, this.offload ? this.toRead(paths, moved) : 0);
      const batch = opts.batch ?? 64;
      let since = performance.now();
      let listed = 0;
      for (let i = 0; i < paths.length; i++) {
        opts.signal?.throwIfAborted();
        const path = paths[i] as string;
        // an unchanged file is checked synchronously: no promise per file, only per parse
        const parsing = this.visit(path, report, moved, pipe);
        if (parsing !== undefined) await parsing;
        if (this.files.has(path)) listed++;
        this.progress.indexed = i + 1;
        // questions are answered between batches: every `batch` files, or sooner when they took YIELD_MS
        // (two threads: a turn every batch handed over, so the second thread's answers are taken as they come)
        if (pipe.active ? pipe.takeTurn() : (i + 1) % batch === 0 && (report.parsed > 0 || performance.now() - since > YIELD_MS)) {
          await nextTurn();
          since = performance.now();
        }
      }
      await pipe.drain();
      if (pipe.active) report.offloaded = pipe.offloaded;
      // the listing has no duplicates: when every entry is a listed file, none was removed (no set of 5,000 paths)
      if (opts.paths === undefined && listed < this.files.size) {
        const keep = new Set(paths);
        for (const path of [...this.files.keys()]) {
          if (!keep.has(path)) {
            this.drop(path);
            report.removed++;
          }
        }
      }
      if (opts.paths === undefined) {
        this.built = true;
        this.maps(); // the name maps are built with the index, never by the first question after it
      }
    } finally {
      await pipe?.stop(); // a cancelled build leaves no batch running on the second thread
      this.progress = { indexed: this.files.size, total: this.files.size, building: false };
    }
    report.ms = performance.now() - t0;
    return report;
  }

  /** Files the refresh will read: the new ones and the known ones whose stat moved. */
  private toRead(paths: string[], moved: ReadonlyMap<string, Stats | null> | undefined): number {
    if (moved === undefined) return paths.length;
    let n = moved.size;
    for (const p of paths) if (!this.files.has(p)) n++;
    return n;
  }

  /** Before the listing: every known file stat'ed, unless trusted watches will name the changed ones (undefined). */
  private movedUnwatched(report: RefreshReport): Map<string, Stats | null> | undefined {
    if (this.watch?.trusted === true) return undefined;
    this.watch?.take();
    this.watch?.reset(this.files.keys()); // watched before the stats: a change after its file's stat is an event
    return this.movedFiles(report);
  }

  /** After the listing: the directories of new files watched (before they are read); the known files the watches named
   *  are stat'ed (all of them when the watches may have missed something since). */
  private movedWatched(paths: readonly string[], moved: Map<string, Stats | null> | undefined, report: RefreshReport): Map<string, Stats | null> | undefined {
    if (this.watch === null) return moved;
    // a known file's directory is watched already (a lost watch makes the next take null): only new files are looked at
    const fresh = paths.filter((p) => !this.files.has(p));
    if (moved === undefined) {
      // the events of changes made before this refresh were delivered while git listed (trust may be lost since)
      const named = this.watch.take();
      if (named === null) this.watch.reset(this.files.keys());
      moved = this.movedFiles(report, named ?? undefined);
    }
    this.watch.cover(fresh, this.files);
    return moved;
  }

  /** The known files (or those of `only`) whose stat moved since they were read (null: gone or no longer a regular file
   *  within the limit). Synchronous on purpose: the index runs in its own worker, and 5,000 stats through the libuv pool
   *  cost ~10× more. */
  private movedFiles(report: RefreshReport, only?: ReadonlySet<string>): Map<string, Stats | null> {
    const moved = new Map<string, Stats | null>();
    const check = (path: string, e: FileEntry): void => {
      const st = lstatSafe(this.abs(path));
      report.checked++;
      if (st === null || !indexable(st) || !unchanged(e, st)) moved.set(path, st);
    };
    if (only === undefined) for (const [path, e] of this.files) check(path, e);
    else
      for (const path of only) {
        const e = this.files.get(path);
        if (e !== undefined) check(path, e);
      }
    return moved;
  }

  /** Brings one file in line; returns a promise only when the file must be parsed and its grammar is not loaded yet.
   *  `moved`: the known files were stat'ed before the listing, and these moved (undefined: stat each known file now). */
  private visit(path: string, report: RefreshReport, moved: ReadonlyMap<string, Stats | null> | undefined, pipe: ParsePipeline): Promise<void> | undefined {
    const old = this.files.get(path);
    // a known file the stats (or the watches) found unchanged: nothing to look at, its language included
    if (old !== undefined && moved !== undefined && !moved.has(path)) {
      report.reused++;
      return;
    }
    const lang = langOf(path);
    if (lang === null) {
      if (old) pipe.apply(() => this.drop(path));
      return;
    }
    if (old !== undefined) {
      const st = moved !== undefined ? (moved.get(path) ?? null) : lstatSafe(this.abs(path));
      if (st === null || !indexable(st)) {
        pipe.apply(() => this.drop(path));
        return;
      }
      if (unchanged(old, st)) {
        report.reused++;
        return;
      }
    }
    // a new file is not stat'ed by path first: the stat comes from the open file (one path lookup, as a bare read)
    const read = readFileAt(this.abs(path));
    if (read === null) {
      if (old) pipe.apply(() => this.drop(path));
      return;
    }
    const { source, st } = read;
    const hash = contentHash(source);
    const readAt = this.now();
    report.hashed++;
    const cached = old?.hash === hash ? old.facts : this.cachedFacts.get(hash);
    if (cached !== undefined) {
      pipe.apply(() => {
        if (cached !== old?.facts) this.changed(path, old?.facts);
        this.files.set(path, { path, hash, size: st.size, mtimeMs: st.mtimeMs, readAt, facts: cached });
      });
      return;
    }
    const keep = (facts: FileFacts): void => {
      this.cachedFacts.set(hash, facts);
      this.changed(path, old?.facts);
      this.files.set(path, { path, hash, size: st.size, mtimeMs: st.mtimeMs, readAt, facts });
      report.parsed++;
    };
    // one thread: parsed now; two: in listing order once either thread parsed it
    return pipe.parse(lang, source, keep);
  }

  /** A listed path on disk (listings are relative with forward slashes: no `join` per file, a tenth of a stat). */
  private abs(path: string): string {
    return this.base + path;
  }

  private drop(path: string): void {
    this.changed(path, this.files.get(path)?.facts);
    this.files.delete(path);
  }

  /** A file's facts changed (`path` with the facts it had), or everything did (no path): the maps are patched for a
   *  few files (a one-file refresh does not rebuild the maps of 5,000) and rebuilt past PATCH_MAX. */
  private changed(path?: string, old?: FileFacts): void {
    this.generation++;
    if (this.derived === null) return;
    if (path === undefined || this.pending.size >= PATCH_MAX) {
      this.derived = null;
      this.pending.clear();
    } else if (!this.pending.has(path)) this.pending.set(path, old);
  }

  /** Every declaration named `name` (exact). */
  declsNamed(name: string): DeclRef[] {
    return this.maps().names.get(name) ?? [];
  }

  /** Every call site whose callee is `name`. */
  callsTo(name: string): CallRef[] {
    return this.maps().callsTo.get(name) ?? [];
  }

  /** Call sites under a local alias of `name` (`import { name as other }`): called as `other` in that file. */
  callsToAliases(name: string): CallRef[] {
    const m = this.maps();
    return (m.aliases.get(name) ?? []).flatMap(({ path, local }) => (m.callsTo.get(local) ?? []).filter((c) => c.path === path));
  }

  /** Which declaration(s) a call site in `path` reaches (resolve.ts): resolved, external or unresolved. */
  resolve(path: string, call: CallSite): Resolution<DeclRef> {
    return this.maps().resolver.resolve(path, call);
  }

  allNames(): IterableIterator<[string, DeclRef[]]> {
    return this.maps().names.entries();
  }

  private maps(): Maps {
    if (this.derived && this.pending.size > 0) this.patch(this.derived);
    if (this.derived) return this.derived;
    const m: Maps = { names: new Map(), callsTo: new Map(), aliases: new Map(), resolver: this.resolver(new Map()) };
    m.resolver = this.resolver(m.names);
    for (const e of this.files.values()) addFile(m, e.path, e.facts);
    return (this.derived = m);
  }

  private resolver(names: Map<string, DeclRef[]>): Resolver<DeclRef> {
    return new Resolver<DeclRef>(this.root, (p) => this.files.get(p)?.facts, this.files, (n) => names.get(n) ?? []);
  }

  /** Takes the pending files' old facts out of the maps and puts their new ones in. */
  private patch(m: Maps): void {
    for (const [path, old] of this.pending) {
      if (old !== undefined) removeFile(m, path, old);
      const now = this.files.get(path);
      if (now !== undefined) addFile(m, path, now.facts);
    }
    this.pending.clear();
    m.resolver = this.resolver(m.names);
  }
}

function addFile(m: Maps, path: string, facts: FileFacts): void {
  for (const imp of facts.imports) for (const [local, imported] of imp.names ?? []) if (local !== imported && imported !== '*' && imported !== 'default') push(m.aliases, imported, { path, local });
  const { decls, calls } = facts;
  decls.forEach((decl, index) => push(m.names, decl.name, { path, index, decl }));
  for (const call of calls) push(m.callsTo, call.callee, { path, call, caller: call.caller >= 0 ? (decls[call.caller] ?? null) : null });
}

function removeFile(m: Maps, path: string, facts: FileFacts): void {
  const keys = (map: Map<string, { path: string }[]>, ks: Iterable<string>): void => {
    for (const k of new Set(ks)) {
      const left = (map.get(k) ?? []).filter((x) => x.path !== path);
      if (left.length > 0) map.set(k, left);
      else map.delete(k);
    }
  };
  keys(m.names, facts.decls.map((d) => d.name));
  keys(m.callsTo, facts.calls.map((c) => c.callee));
  keys(m.aliases, facts.imports.flatMap((i) => (i.names ?? []).map(([, imported]) => imported)));
}

interface Maps {
  names: Map<string, DeclRef[]>;
  callsTo: Map<string, CallRef[]>;
  aliases: Map<string, { path: string; local: string }[]>;
  resolver: Resolver<DeclRef>;
}

/** The file is as it was read: same size and mtime, and not changed within RACY_MS of its read (git's racy rule: a
 *  change in the same mtime tick would otherwise go unseen). */
function unchanged(e: FileEntry, st: Stats): boolean {
  return e.size === st.size && e.mtimeMs === st.mtimeMs && !(e.readAt > 0 && e.readAt - st.mtimeMs < RACY_MS);
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

export function contentHash(source: string): string {
  // one-shot: no Hash object per file (a third of the hashing time on small files)
  return nodeCrypto().hash('sha256', source, 'hex').slice(0, 32);
}
