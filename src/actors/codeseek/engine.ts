// CodeSeek: the indexes of the workspaces asked about, each refreshed in the background (one refresh at a time),
// answered from what is indexed; a question waits for a refresh only up to `waitMs`, then says what is missing.
import { readFile, realpath } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock, TaskGroup } from '../../runtime/actor.js';
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import { callees, callers, callgraph, renderSnippet, search, skeleton, snippetTargets, warmAnswers, type CodeQuery } from './answers.js';
import { CodeIndex, contentHash, type CacheImage, type Progress, type RefreshReport } from './code-index.js';
import type { ParseCpu } from './parse-pipeline.js';

/** Where an index is kept between runs (the store actor in production: `data/codeseek/{key}.json`). */
export interface IndexCache {
  read(key: string): Promise<string | null>;
  write(key: string, data: string): Promise<void>;
}

export interface CodeAnswer {
  text: string;
  status: Progress;
}

export interface CodeSeekOptions {
  tasks: TaskGroup;
  clock: Clock;
  cache?: IndexCache;
  /** How long a question waits for a refresh in flight before it is answered from what is indexed (default 1.5 s). */
  waitMs?: number;
  /** A refresh that ended this recently is fresh enough: no new one for the next question (default 1 s). */
  freshMs?: number;
  /** A background failure (a refresh, a cache write): reported, never thrown at a question. */
  onError?: (what: string, err: unknown) => void;
  /** The runtime's CPU service: a build of many files also parses on its thread (parse-pipeline.ts). */
  cpu?: ParseCpu;
}

interface Workspace {
  index: CodeIndex;
  loaded: Promise<void>;
  refreshing: Promise<RefreshReport | null> | null;
  /** Resolves when the refresh in flight has updated the index, before its cache write (questions wait for this). */
  indexed: Promise<RefreshReport | null> | null;
  savedGeneration: number;
  lastReport: RefreshReport | null;
  /** When the last refresh ended (clock ms; 0 = never). */
  refreshedAt: number;
  /** The answer path was run once on this index (after its first refresh, off any question's path). */
  warmed: boolean;
}

/** The cache key of a workspace: its real path, hashed (a file name, no path in it). */
export function workspaceKey(realRoot: string): string {
  return nodeCrypto().createHash('sha256').update(realRoot).digest('hex').slice(0, 32);
}

export class CodeSeek {
  private readonly spaces = new Map<string, Workspace>();
  private readonly waitMs: number;

  constructor(private readonly o: CodeSeekOptions) {
    this.waitMs = o.waitMs ?? 1_500;
  }

  private async space(workspace: string): Promise<Workspace> {
    const root = await realpath(workspace);
    let ws = this.spaces.get(root);
    if (!ws) {
      const { cpu, onError } = this.o;
      const offload = cpu && { cpu, onError: (err: unknown) => onError?.('parsing on the second thread (parsed on the index thread instead)', err) };
      const index = new CodeIndex(root, () => this.o.clock.now(), { watch: true, offload });
      const made: Workspace = { index, loaded: Promise.resolve(), refreshing: null, indexed: null, savedGeneration: 0, lastReport: null, refreshedAt: 0, warmed: false };
      made.loaded = this.adoptCache(made);
      this.spaces.set(root, (ws = made));
    }
    await ws.loaded;
    return ws;
  }

  private async adoptCache(ws: Workspace): Promise<void> {
    if (!this.o.cache) return;
    try {
      const raw = await this.o.cache.read(workspaceKey(ws.index.root));
      if (raw !== null && ws.index.adopt(JSON.parse(raw) as CacheImage)) ws.savedGeneration = ws.index.generation;
    } catch (err) {
      this.o.onError?.('reading the code index cache', err); // a bad cache is rebuilt, never fatal
    }
  }

  /** Starts a refresh as a named task unless one is running (`ws.refreshing` resolves when it ends, cache written;
   *  `ws.indexed` when the index is up to date, before the cache write; null: failed). */
  private kick(ws: Workspace): void {
    if (ws.refreshing) return;
    let done!: (r: RefreshReport | null) => void;
    let indexed!: (r: RefreshReport | null) => void;
    ws.refreshing = new Promise((r) => (done = r));
    ws.indexed = new Promise((r) => (indexed = r));
    this.o.tasks.go('codeseek-refresh', async (signal) => {
      let report: RefreshReport | null = null;
      try {
        report = await ws.index.refresh({ signal });
        ws.lastReport = report;
        ws.refreshedAt = this.o.clock.now();
        // the questions waiting for this refresh are answered first: the cache image of 5,000 files is ~30 ms of
        // JSON (and a store round trip) that no answer needs
        indexed(report);
        await nextTurn();
        if (!ws.warmed) {
          // the first question after a build would compile the answer path (1–2 ms): done here, after the waiting ones
          ws.warmed = true;
          warmAnswers(ws.index);
        }
        await this.save(ws);
      } catch (err) {
        this.o.onError?.(`indexing ${ws.index.root}`, err);
      } finally {
        ws.refreshing = null;
        ws.indexed = null;
        ws.refreshedAt = this.o.clock.now();
        indexed(report);
        done(report);
      }
    });
  }

  /** The refresh in flight (started if none), up to its cache write. */
  private running(ws: Workspace): Promise<RefreshReport | null> {
    this.kick(ws);
    return ws.refreshing ?? Promise.resolve(ws.lastReport);
  }

  /** The refresh in flight (started if none), up to the index being updated: what a question waits for. */
  private indexing(ws: Workspace): Promise<RefreshReport | null> {
    this.kick(ws);
    return ws.indexed ?? Promise.resolve(ws.lastReport);
  }

  private async save(ws: Workspace): Promise<void> {
    if (!this.o.cache || ws.index.generation === ws.savedGeneration) return;
    const gen = ws.index.generation;
    try {
      await this.o.cache.write(workspaceKey(ws.index.root), JSON.stringify(ws.index.image()));
      ws.savedGeneration = gen;
    } catch (err) {
      this.o.onError?.('writing the code index cache', err);
    }
  }

  /** Starts indexing `workspace` in the background (an agent's run start); never waits. */
  async warm(workspace: string): Promise<Progress> {
    const ws = await this.space(workspace);
    this.kick(ws);
    return ws.index.status();
  }

  /** Brings the index up to date (waits for the whole refresh): benchmarks, tests, the MCP server's start. */
  async settle(workspace: string): Promise<RefreshReport | null> {
    const ws = await this.space(workspace);
    if (ws.refreshing) await ws.refreshing;
    return this.running(ws);
  }

  async status(workspace: string): Promise<Progress & { last: RefreshReport | null }> {
    const ws = await this.space(workspace);
    return { ...ws.index.status(), last: ws.lastReport };
  }

  /** Every indexed file's language and import specifiers, after waiting up to `waitMs` for a refresh. */
  async files(workspace: string, waitMs: number): Promise<{ path: string; lang: string; imports: string[] }[]> {
    const ws = await this.space(workspace);
    await this.within(this.indexing(ws), waitMs);
    return [...ws.index.entries()].map((e) => ({ path: e.path, lang: e.facts.lang, imports: e.facts.imports.map((i) => i.spec) }));
  }

  private async within(p: Promise<unknown>, ms: number): Promise<void> {
    let timer: { cancel(): void } | undefined;
    await Promise.race([p, new Promise<void>((r) => (timer = this.o.clock.setTimeout(r, ms)))]);
    timer?.cancel();
  }

  async ask(workspace: string, q: CodeQuery): Promise<CodeAnswer> {
    const ws = await this.space(workspace);
    const fresh = ws.refreshedAt > 0 && this.o.clock.now() - ws.refreshedAt < (this.o.freshMs ?? 1_000);
    const pending = fresh && !ws.refreshing ? Promise.resolve(ws.lastReport) : this.indexing(ws);
    await this.within(pending, this.waitMs);
    const text = await this.answer(ws, q);
    const status = ws.index.status();
    const note = status.building ? `\n[index still building: ${status.indexed} of ${status.total} files indexed; results cover those only. Ask again shortly, or use grep for an exact string.]` : '';
    return { text: text + note, status };
  }

  private async answer(ws: Workspace, q: CodeQuery): Promise<string> {
    const ix = ws.index;
    switch (q.op) {
      case 'search':
        return search(ix, q.query, q.limit);
      case 'callers':
        return callers(ix, q.name, q.path);
      case 'callees':
        return callees(ix, q.name, q.path);
      case 'callgraph':
        return callgraph(ix, q.name, q.depth, q.direction, q.path);
      case 'skeleton':
        return skeleton(ix, q.paths);
      case 'snippet':
        return this.snippet(ws, q.name, q.path);
    }
  }

  /** The declaration's lines as they are on disk now: a file changed since it was indexed is indexed again first. */
  private async snippet(ws: Workspace, name: string, path?: string): Promise<string> {
    let targets = snippetTargets(ws.index, name, path);
    if (targets.length === 0) return `No declaration named "${name}"${path !== undefined ? ` in ${path}` : ''} is indexed (try codeseek_search).`;
    const out: string[] = [];
    for (const t of targets) {
      const source = await readFile(`${ws.index.root}/${t.path}`, 'utf8').catch(() => null);
      if (source === null) {
        out.push(`${t.path}: no longer readable`);
        continue;
      }
      if (contentHash(source) !== ws.index.file(t.path)?.hash) {
        await ws.index.refresh({ paths: [t.path] });
        targets = snippetTargets(ws.index, name, t.path);
        const again = targets.find((x) => x.path === t.path);
        out.push(again ? renderSnippet(again, source) : `${t.path}: ${name} is no longer declared there`);
      } else out.push(renderSnippet(t, source));
    }
    return out.join('\n\n');
  }
}
