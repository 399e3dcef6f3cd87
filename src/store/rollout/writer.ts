// One rollout file, one owner of its handle: enqueue returns at once, group commit (write + fsync) in batches.
import { promises as fsp } from 'node:fs';
import type { Clock } from '../../runtime/actor.js';
import type { RolloutRecord } from '../api.js';
import { capMarker, shouldPersist, type RolloutPolicy } from './policy.js';

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** fh.write may write less than asked (a file-size limit, a full disk): loop until every byte is written or a
 *  write throws — a short write is never a silent torn tail. */
async function writeAll(fh: fsp.FileHandle, data: string): Promise<void> {
  // the string as it is (no Buffer copy of a whole commit); only a short write needs the bytes to go on from
  const { bytesWritten: first } = await fh.write(data);
  if (first >= Buffer.byteLength(data)) return;
  const buf = Buffer.from(data);
  for (let off = first; off < buf.length; ) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    if (bytesWritten <= 0) throw Object.assign(new Error('rollout write made no progress'), { code: 'EIO' });
    off += bytesWritten;
  }
}

export class RolloutWriter {
  private buf: string[] = [];
  private bufBytes = 0;
  private enqSeq = 0;
  private durableSeq = 0;
  private inflight: Promise<void> | null = null;
  /** A drain's commit running beside the loop's in-flight fsync. */
  private express: Promise<void> | null = null;
  private writeTail: Promise<void> = Promise.resolve();
  private timer: { cancel(): void } | null = null;
  private waiters: Waiter[] = [];
  private spaceWaiters: (() => void)[] = [];
  private failure: Error | null = null;
  private capped = false;
  private closed = false;
  /** Records dropped by the size cap (reported by the marker line). */
  dropped = 0;
  /** Group commits done (one write + one fsync each). */
  commits = 0;

  private constructor(
    readonly path: string,
    private readonly fh: fsp.FileHandle,
    private bytes: number,
    private readonly policy: RolloutPolicy,
    private readonly clock: Clock,
  ) {}

  static async open(path: string, policy: RolloutPolicy, clock: Clock): Promise<RolloutWriter> {
    const fh = await fsp.open(path, 'a+', 0o600);
    const st = await fh.stat();
    const w = new RolloutWriter(path, fh, st.size, policy, clock);
    if (st.size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, st.size - 1);
      // a torn tail from a crash must not swallow the first new record: start on a fresh line
      if (last[0] !== 0x0a) w.buf.push('\n');
    }
    return w;
  }

  /** Buffers records and returns at once; the batch goes to disk at batchRecords or after batchMs. */
  enqueue(records: readonly RolloutRecord[]): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error(`rollout ${this.path} is closed`);
    for (const r of records) {
      if (!shouldPersist(r)) continue;
      const line = `${JSON.stringify(r)}\n`;
      const len = Buffer.byteLength(line);
      if (this.bytes + len > this.policy.maxFileBytes) {
        this.dropped++;
        if (!this.capped) {
          this.capped = true;
          const marker = capMarker(this.dropped, this.clock.now());
          this.push(marker, Buffer.byteLength(marker));
        }
        continue;
      }
      this.bytes += len;
      this.push(line, len);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.buf.length >= this.policy.batchRecords || this.waiters.length > 0) this.kick();
    else if (this.buf.length > 0 && !this.timer && !this.inflight) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = null;
        this.kick();
      }, this.policy.batchMs);
    }
  }

  private push(line: string, bytes: number): void {
    this.buf.push(line);
    this.bufBytes += bytes;
    this.enqSeq++;
  }

  private overBound(): boolean {
    return this.buf.length > this.policy.maxQueuedRecords || this.bufBytes > this.policy.maxQueuedBytes;
  }

  /** The caller's backpressure: a promise of the buffer back under the queue bound, none when it is under. */
  waitForSpace(): Promise<void> | undefined {
    if (!this.failure && !this.overBound()) return undefined;
    return this.spaceFreed();
  }

  private async spaceFreed(): Promise<void> {
    while (this.overBound() && !this.failure) {
      await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
    }
    if (this.failure) throw this.failure;
  }

  /** Resolves only when every record enqueued before this call is durable (written and fsynced). */
  drain(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.enqSeq;
    if (this.durableSeq >= seq) return Promise.resolve();
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    this.kick();
    // a drain behind an in-flight commit need not wait for its fsync: write now and fsync alongside it
    if (this.inflight && !this.express && this.buf.length > 0) {
      this.express = this.commit()
        .catch((err: unknown) => this.fail(err))
        .finally(() => (this.express = null));
    }
    return p;
  }

  get pendingRecords(): number {
    return this.enqSeq - this.durableSeq;
  }

  private kick(): void {
    if (this.timer) {
      this.timer.cancel();
      this.timer = null;
    }
    if (this.inflight || this.buf.length === 0) return;
    this.inflight = this.loop().finally(() => {
      this.inflight = null;
      // records that arrived after the last pass looked at the buffer
      if (!this.failure && !this.closed) this.schedule();
    });
  }

  // Group commit: while one write+fsync is in flight, records keep buffering; the next pass takes them all.
  private async loop(): Promise<void> {
    try {
      while (this.buf.length > 0) await this.commit();
    } catch (err) {
      this.fail(err);
    }
  }

  /** Takes the whole buffer: one write, one fsync. At most two run at once (the loop's and a drain's). */
  private async commit(): Promise<void> {
    const lines = this.buf;
    const upto = this.enqSeq;
    this.buf = [];
    this.bufBytes = 0;
    this.wakeSpace();
    await this.write(lines.join(''));
    await this.fh.sync();
    // an fsync covers every byte written before it began, whichever commit wrote them
    if (upto > this.durableSeq) this.durableSeq = upto;
    this.commits++;
    this.settle();
  }

  /** Writes stay in enqueue order: each waits for the previous write (never for its fsync). */
  private write(data: string): Promise<void> {
    const w = this.writeTail.then(async () => {
      if (this.failure) throw this.failure;
      await writeAll(this.fh, data);
    });
    this.writeTail = w.catch(() => undefined); // the tail only orders writes: w's failure goes to its caller and fail()
    return w;
  }

  private fail(err: unknown): void {
    this.failure ??= err instanceof Error ? err : new Error(String(err));
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
    this.wakeSpace();
  }

  private settle(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.seq <= this.durableSeq) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  private wakeSpace(): void {
    for (const w of this.spaceWaiters.splice(0)) w();
  }

  /** Drains, then releases the handle. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.failure) await this.drain();
      if (this.inflight) await this.inflight;
      if (this.express) await this.express;
    } finally {
      this.closed = true;
      await this.fh.close();
    }
  }
}
