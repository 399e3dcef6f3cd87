// The index build on two threads: while this thread lists, reads, hashes and parses its share, batches of files go to
// a second parse thread through the runtime's CPU service (CPU_SERVICE: no worker of our own). Every change reaches
// the index in listing order whichever thread parsed it, so two threads build the same index as one. One thread only
// on a one-core machine, for a refresh of a few files, and for the rest of a build once the second thread failed.
import { availableParallelism } from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CpuJob } from '../../runtime/cpu-service.js';
import { extractWith } from './extract.js';
import type { FileFacts } from './facts.js';
import { grammar, loadedGrammar } from './grammars.js';
import type { ParseBatchInput } from './parse-job.js';
import type { LangId } from './queries.js';

/** The CPU service's shape (a worker's `ctx.connect<CpuService>(CPU_SERVICE)`, or `Runtime.cpu`). */
export interface ParseCpu {
  run(job: CpuJob, input: unknown): Promise<unknown>;
}

export interface ParseOffload {
  cpu: ParseCpu;
  /** The second thread failed (its batch is parsed here, and the rest of the build too): reported, never thrown. */
  onError?: (err: unknown) => void;
  /** Cores to use (default `os.availableParallelism()`): 1 never offloads. */
  threads?: number;
  /** A build reading fewer files stays on one thread (default OFFLOAD_MIN_FILES). */
  minFiles?: number;
}

/** Below this many files to read, one thread: the second thread's first batch loads its grammars (~240 ms CPU, as
 *  the index thread's own first parse), which 400 files (0.2–1.4 ms a parse) pay back in wall time. */
export const OFFLOAD_MIN_FILES = 400;
/** A batch handed over closes at this many files or bytes (~5–10 ms of parsing: a token count queued behind it on the
 *  shared pool thread waits no longer than that). */
const CHUNK = 32;
const CHUNK_BYTES = 32_768;
/** Batches at the second thread at once: one runs while the next waits there, so it never idles for our turn. */
const IN_FLIGHT = 2;
/** A stuck batch stops its pool thread (JOB_TIMEOUT) and is parsed here; under the 30 s RPC timeout. */
const JOB_TIMEOUT_MS = 20_000;
export const PARSE_JOB: CpuJob = { module: 'src/actors/codeseek/parse-job.js', name: 'parseBatch', timeoutMs: JOB_TIMEOUT_MS };

interface Parse {
  lang: LangId;
  source: string;
  keep: (facts: FileFacts) => void;
  facts: FileFacts | undefined;
}
type Entry = Parse | (() => void);

export class ParsePipeline {
  /** Whether this build uses the second thread (false: every call acts at once, as the one-thread build). */
  readonly active: boolean;
  /** Files the second thread parsed. */
  offloaded = 0;
  private queue: (Entry | undefined)[] = [];
  private head = 0;
  private chunk: Parse[] = [];
  private chunkBytes = 0;
  /** A batch closed since `takeTurn`: the build yields so the second thread's answers come in. */
  private closed = false;
  private readonly inflight = new Set<Promise<void>>();
  /** Batches handed over and not answered yet, in the order sent. */
  private readonly waiting = new Set<Parse[]>();
  private broken = false;
  private stopped = false;
  private drained = false;

  constructor(private readonly o: ParseOffload | undefined, toRead: number) {
    this.active = o !== undefined && (o.threads ?? availableParallelism()) > 1 && toRead >= (o.minFiles ?? OFFLOAD_MIN_FILES);
  }

  /** A change that needs no parse: now, or after the parses queued before it (listing order). */
  apply(change: () => void): void {
    if (this.head === this.queue.length) change();
    else this.queue.push(change);
  }

  /** A file to parse; `keep` gets its facts in listing order. A promise only while a grammar loads here. */
  parse(lang: LangId, source: string, keep: (facts: FileFacts) => void): Promise<void> | undefined {
    if (!this.active) {
      const g = loadedGrammar(lang);
      if (g !== undefined) keep(extractWith(g, lang, source));
      else return grammar(lang).then((loaded) => keep(extractWith(loaded, lang, source)));
      return;
    }
    const p: Parse = { lang, source, keep, facts: undefined };
    this.queue.push(p);
    this.chunk.push(p);
    this.chunkBytes += source.length;
    if (this.chunk.length < CHUNK && this.chunkBytes < CHUNK_BYTES) return;
    const chunk = this.chunk;
    this.chunk = [];
    this.chunkBytes = 0;
    this.closed = true;
    if (!this.broken && this.inflight.size < IN_FLIGHT) return this.send(chunk);
    return this.local(chunk);
  }

  /** Whether a batch closed since the last call (then the build yields a turn). */
  takeTurn(): boolean {
    const t = this.closed;
    this.closed = false;
    return t;
  }

  /** Every parse applied: the last batch here; then, while answers are missing, the batch handed over last is parsed
   *  here too (a second thread still loading its grammars, or given no core, never holds the build up). */
  async drain(): Promise<void> {
    const tail = this.chunk;
    this.chunk = [];
    await this.local(tail);
    for (;;) {
      this.flush();
      if (this.head === this.queue.length) break;
      await nextTurn(); // the answers already sent are taken before any batch is parsed twice
      this.flush();
      if (this.head === this.queue.length) break;
      const last = [...this.waiting].pop();
      if (last === undefined) {
        if (this.inflight.size === 0) throw new Error('codeseek: a parse was never applied');
        await Promise.race([...this.inflight]); // a failed batch being parsed here (its grammar loading)
        continue;
      }
      this.waiting.delete(last);
      await this.local(last);
    }
    this.drained = true;
  }

  /** The end of a build: a cancelled one waits for its batches at the second thread (their facts are dropped) and
   *  applies nothing more; a whole one leaves only batches it parsed itself, whose answers are dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.drained) return;
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  private send(chunk: Parse[]): undefined {
    const p: Promise<void> = this.remote(chunk).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
    this.waiting.add(chunk);
    return undefined;
  }

  /** Never rejects: a failed batch is parsed here. */
  private async remote(chunk: Parse[]): Promise<void> {
    try {
      const input: ParseBatchInput = { files: chunk.map((p) => [p.lang, p.source]) };
      const answer = await this.o?.cpu.run(PARSE_JOB, input);
      const out: unknown = typeof answer === 'string' ? JSON.parse(answer) : answer;
      if (!Array.isArray(out) || out.length !== chunk.length) throw new Error(`the parse thread answered ${Array.isArray(out) ? out.length : typeof out} facts for ${chunk.length} files`);
      // a batch this thread parsed meanwhile keeps its own facts (the same: one function of the same source)
      if (!this.waiting.delete(chunk)) return;
      chunk.forEach((p, i) => (p.facts = out[i] as FileFacts));
      this.offloaded += chunk.length;
    } catch (err) {
      if (this.stopped && !this.drained) return; // cancelled: the build is not whole anyway
      if (!this.broken) this.o?.onError?.(err); // reported even when this thread parsed the batch meanwhile
      this.broken = true;
      if (!this.waiting.delete(chunk)) return;
      await this.local(chunk);
      return;
    }
    this.flush();
  }

  private local(chunk: Parse[]): Promise<void> | undefined {
    for (let i = 0; i < chunk.length; i++) {
      const p = chunk[i] as Parse;
      if (p.facts !== undefined) continue;
      const g = loadedGrammar(p.lang);
      if (g === undefined) return this.loadThenLocal(chunk.slice(i));
      p.facts = extractWith(g, p.lang, p.source);
    }
    this.flush();
    return undefined;
  }

  private async loadThenLocal(chunk: Parse[]): Promise<void> {
    for (const p of chunk) p.facts ??= extractWith(loadedGrammar(p.lang) ?? (await grammar(p.lang)), p.lang, p.source);
    this.flush();
  }

  /** Applies the queue's ready head, in order. */
  private flush(): void {
    if (this.stopped) return;
    const q = this.queue;
    while (this.head < q.length) {
      const e = q[this.head] as Entry;
      if (typeof e === 'function') e();
      else if (e.facts !== undefined) e.keep(e.facts);
      else break;
      q[this.head++] = undefined;
    }
    if (this.head === q.length) {
      this.queue = [];
      this.head = 0;
    }
  }
}
