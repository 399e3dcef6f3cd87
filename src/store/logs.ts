// Log files: {root}/logs/{kind}-{YYYY-MM-DD}[.N].jsonl (0600 in a 0700 dir), one JSON object per line, every line
// through the store's redactor. Rotated by size (the next .N file; no rename), files older than keepDays removed.
import { closeSync, fstatSync, promises as fsp, openSync, statSync, write as fsWrite } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../runtime/actor.js';
import type { Redactor } from '../runtime/redact.js';
import type { LogLine } from './api.js';

/** `llm-error`: every failed model call (each retried attempt and each call that gave up), also in `llm`. */
export const LOG_KINDS = ['app', 'llm', 'llm-error', 'tool', 'delegate'] as const;

export interface LogOptions {
  /** Files whose day is older than this many days are removed (at the first write of each day). 0 = keep all. */
  keepDays: number;
  /** A file that would grow past this continues in the next `.N` file. */
  maxFileBytes: number;
}

export const DEFAULT_LOG_OPTIONS: LogOptions = { keepDays: 7, maxFileBytes: 10 * 1024 * 1024 };

/** A log file's descriptor is closed after this long without a write (and at shutdown). */
export const LOG_IDLE_CLOSE_MS = 5000;

const FILE_RE = /^(app|llm-error|llm|tool|delegate)-(\d{4}-\d{2}-\d{2})(?:\.(\d+))?\.jsonl$/;
const DAY_MS = 86_400_000;

export const logsDir = (root: string): string => join(root, 'logs');
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export class LogFiles {
  /** Writes are serialised (settles, never rejects): sizes and rotation stay exact. */
  private chain: Promise<void> = Promise.resolve();
  /** `{kind}-{day}` → the file now written and its size. */
  private readonly current = new Map<string, { index: number; size: number }>();
  private prunedDay = '';
  private dirReady = false;
  /** `{kind}-{day}` → its open file (O_APPEND, 0600): one write per append, not open, write and close (issue 29). */
  private readonly open = new Map<string, { path: string; fd: number; ino: number }>();
  private idle: NodeJS.Timeout | undefined;
  /** Appends not yet settled: the idle close waits for none. */
  private pending = 0;

  constructor(
    private readonly root: string,
    private readonly opts: LogOptions,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly redact: Redactor,
  ) {}

  get dir(): string {
    return logsDir(this.root);
  }

  /** Appends every line (one write per file, on a descriptor kept open until idle or shutdown); resolves once
   *  written (in the kernel: a process exit loses none). */
  append(lines: readonly LogLine[]): Promise<void> {
    this.pending += 1;
    const run = this.chain.then(() => this.write(lines)).finally(() => (this.pending -= 1));
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Waits for every write, then closes every descriptor (shutdown; a later append opens again). */
  async close(): Promise<void> {
    await this.chain;
    this.closeAll();
  }

  private closeAll(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
    for (const key of [...this.open.keys()]) this.closeOne(key);
  }

  private closeOne(key: string): void {
    const h = this.open.get(key);
    if (h === undefined) return;
    this.open.delete(key);
    closeSync(h.fd);
  }

  /** The key's file at `path`, opened once (O_APPEND, 0600); reopened when the name no longer leads to it (removed or
   *  replaced). Open and stat are synchronous: microseconds, no libuv-pool hop in the store worker. */
  private handle(key: string, path: string): number {
    const h = this.open.get(key);
    if (h !== undefined) {
      if (h.path === path && statSync(path, { throwIfNoEntry: false })?.ino === h.ino) return h.fd;
      this.closeOne(key);
    }
    const fd = openSync(path, 'a', 0o600);
    try {
      this.open.set(key, { path, fd, ino: fstatSync(fd).ino });
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return fd;
  }

  /** Every byte or an error (a short write is continued, never a torn tail left silently). */
  private async writeAll(key: string, path: string, text: string): Promise<void> {
    const fd = this.handle(key, path);
    const buf = Buffer.from(text);
    try {
      for (let off = 0; off < buf.length; ) {
        const n = await new Promise<number>((res, rej) => fsWrite(fd, buf, off, buf.length - off, null, (err, written) => (err ? rej(err) : res(written))));
        if (n <= 0) throw new Error(`log write to ${path} made no progress`);
        off += n;
      }
    } catch (e) {
      this.closeOne(key);
      throw e;
    }
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.closeIdle(), LOG_IDLE_CLOSE_MS);
    this.idle.unref();
  }

  /** No write for LOG_IDLE_CLOSE_MS: the descriptors are closed (again later if an append is still running). */
  private closeIdle(): void {
    this.idle = undefined;
    if (this.pending === 0) this.closeAll();
    else {
      this.idle = setTimeout(() => this.closeIdle(), LOG_IDLE_CLOSE_MS);
      this.idle.unref();
    }
  }

  private async write(lines: readonly LogLine[]): Promise<void> {
    if (lines.length === 0) return;
    await this.ensureDir();
    const today = day(this.clock.now());
    if (this.prunedDay !== today) {
      this.prunedDay = today;
      await this.prune(today);
    }
    const byFile = new Map<string, string[]>();
    for (const l of lines) {
      const ts = l.ts ?? this.clock.now();
      const key = `${l.kind}-${day(ts)}`;
      const text = JSON.stringify(this.redact.value({ ...l, ts: new Date(ts).toISOString() }));
      const list = byFile.get(key) ?? [];
      list.push(`${text}\n`);
      byFile.set(key, list);
    }
    for (const [key, list] of byFile) await this.appendTo(key, list);
  }

  private async appendTo(key: string, lines: string[]): Promise<void> {
    const cur = this.current.get(key) ?? (await this.discover(key));
    let chunk: string[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (chunk.length === 0) return;
      await this.writeAll(key, join(this.dir, fileName(key, cur.index)), chunk.join(''));
      cur.size += bytes;
      chunk = [];
      bytes = 0;
    };
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (cur.size + bytes + n > this.opts.maxFileBytes && cur.size + bytes > 0) {
        await flush();
        cur.index += 1;
        cur.size = 0;
      }
      chunk.push(line);
      bytes += n;
    }
    await flush();
    this.current.set(key, cur);
  }

  /** The newest existing file of a kind and day (after a restart the day continues where it stopped). */
  private async discover(key: string): Promise<{ index: number; size: number }> {
    let index = 0;
    for (const name of await fsp.readdir(this.dir)) {
      const m = FILE_RE.exec(name);
      if (m && `${m[1]}-${m[2]}` === key) index = Math.max(index, Number(m[3] ?? 0));
    }
    const size = await fsp.stat(join(this.dir, fileName(key, index))).then((s) => s.size, () => 0);
    return { index, size };
  }

  private async ensureDir(): Promise<void> {
    if (this.dirReady) return;
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    await fsp.chmod(this.dir, 0o700);
    this.dirReady = true;
  }

  /** Removes files whose day is more than keepDays before today. */
  private async prune(today: string): Promise<void> {
    if (this.opts.keepDays <= 0) return;
    const cutoff = day(Date.parse(today) - this.opts.keepDays * DAY_MS);
    for (const name of await fsp.readdir(this.dir)) {
      const m = FILE_RE.exec(name);
      if (m?.[2] !== undefined && m[2] < cutoff) {
        this.closeOne(`${m[1]}-${m[2]}`);
        await fsp.rm(join(this.dir, name), { force: true });
        for (const k of [...this.current.keys()]) if (k === `${m[1]}-${m[2]}`) this.current.delete(k);
      }
    }
  }
}

function fileName(key: string, index: number): string {
  return index === 0 ? `${key}.jsonl` : `${key}.${index}.jsonl`;
}
