import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { RolloutRecord } from '../../src/store/api.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { parseRecords } from '../../src/store/rollout/lines.js';
import { DEFAULT_POLICY } from '../../src/store/rollout/policy.js';
import { RolloutWriter } from '../../src/store/rollout/writer.js';
import { meta, storeIn, tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());
let n = 0;
const file = (): string => join(t.dir, `w${++n}.jsonl`);
const user = (i: number): RolloutRecord => ({ type: 'response_item', ts: i, payload: { role: 'user', content: `m${i}` } });
const onDisk = (p: string): number => parseRecords(readFileSync(p, 'utf8')).records.length;
/** One macrotask turn: every microtask chain a call started (a commit's write call, a resolved append) has run. */
const turn = (): Promise<void> => nextTurn();

/** A disk call held until the test releases it: `entered` resolves once the writer is waiting on it. */
interface Held {
  entered: Promise<void>;
  release: () => void;
  enter: () => Promise<void>;
}
function held(): Held {
  let entered!: () => void;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { entered: new Promise<void>((r) => (entered = r)), release, enter: () => (entered(), gate) };
}

/** Watches the writer's file handle: counts write calls, resolves `syncs(n)` once n fsyncs finished, and can hold the
 *  first write or fsync until the test releases it (a slow disk the test controls, not a timer). */
function tap(w: RolloutWriter, hold: { write?: Held; sync?: Held } = {}) {
  type Fh = { write(...a: unknown[]): Promise<unknown>; sync(): Promise<void> };
  const fh = (w as unknown as { fh: Fh }).fh;
  const realWrite = fh.write.bind(fh);
  const realSync = fh.sync.bind(fh);
  const t = { writes: 0, synced: 0, waiters: [] as { n: number; r: () => void }[] };
  let heldWrite = hold.write;
  let heldSync = hold.sync;
  fh.write = async (...a: unknown[]) => {
    t.writes++;
    const h = heldWrite;
    heldWrite = undefined;
    if (h) await h.enter();
    return realWrite(...a);
  };
  fh.sync = async () => {
    const h = heldSync;
    heldSync = undefined;
    if (h) await h.enter();
    await realSync();
    t.synced++;
    t.waiters = t.waiters.filter((x) => (x.n <= t.synced ? (x.r(), false) : true));
  };
  return {
    get writes() {
      return t.writes;
    },
    /** Resolves once n fsyncs have finished, then lets the commit that ran them finish its bookkeeping. */
    syncs: (n: number): Promise<void> => new Promise<void>((r) => (n <= t.synced ? r() : t.waiters.push({ n, r }))).then(turn),
  };
}

describe('rollout writer (group commit, drain)', () => {
  it('enqueue returns at once and nothing reaches disk before 32 records or 20 ms', async () => {
    const clock = new ManualClock();
    const p = file();
    const w = await RolloutWriter.open(p, DEFAULT_POLICY, clock);
    const fh = tap(w);
    w.enqueue([user(1), user(2), user(3)]);
    await turn(); // a commit started by enqueue would have called write by now
    expect(fh.writes).toBe(0);
    expect(clock.pending()).toBe(1); // the batch timer is on the injected clock
    expect(w.pendingRecords).toBe(3);
    clock.advance(19);
    await turn(); // a timer shorter than 20 ms has fired and its commit has called write
    expect(fh.writes).toBe(0);
    expect(onDisk(p)).toBe(0);
    clock.advance(1);
    await turn();
    expect(fh.writes).toBe(1); // the timer, not the drain below, started the commit
    await w.drain();
    expect(onDisk(p)).toBe(3);
    expect(w.commits).toBe(1);
    await w.close();
  });

  it('flushes at 32 records without waiting for the timer', async () => {
    const clock = new ManualClock();
    const p = file();
    const w = await RolloutWriter.open(p, DEFAULT_POLICY, clock);
    const fh = tap(w);
    w.enqueue(Array.from({ length: 32 }, (_, i) => user(i)));
    expect(clock.pending()).toBe(0); // no batch timer: the commit started at once
    await fh.syncs(1);
    expect(w.commits).toBe(1);
    expect(onDisk(p)).toBe(32);
    await w.close();
  });

  it('group commit: records enqueued while an fsync is in flight go together in the next pass', async () => {
    const clock = new ManualClock();
    const p = file();
    const w = await RolloutWriter.open(p, DEFAULT_POLICY, clock);
    const fh = tap(w);
    w.enqueue(Array.from({ length: 32 }, (_, i) => user(i))); // starts commit 1
    for (let i = 0; i < 10; i++) w.enqueue([user(100 + i)]); // buffered behind the in-flight fsync
    await fh.syncs(1);
    expect(fh.writes).toBe(2); // the next pass started as soon as commit 1 was durable
    await fh.syncs(2);
    expect(w.pendingRecords).toBe(0);
    expect(fh.writes).toBe(2); // ten records, one write: they went together
    expect(w.commits).toBe(2);
    expect(onDisk(p)).toBe(42);
    expect(clock.pending()).toBe(0);
    await w.close();
  });

  it('a drain behind an in-flight commit writes at once and does not wait for that fsync', async () => {
    const p = file();
    const w = await RolloutWriter.open(p, DEFAULT_POLICY, new ManualClock());
    const slowSync = held(); // the first fsync hangs (a slow disk) until released; later ones are real
    const fh = tap(w, { sync: slowSync });
    w.enqueue(Array.from({ length: 32 }, (_, i) => user(i))); // commit 1: its fsync hangs
    await slowSync.entered;
    w.enqueue([user(99)]);
    const drained = w.drain();
    await turn();
    expect(fh.writes).toBe(2); // the drain wrote beside the held fsync instead of queueing behind it
    await drained; // and resolves while that fsync is still held
    expect(onDisk(p)).toBe(33);
    slowSync.release();
    await w.close();
    expect(w.commits).toBe(2);
  });

  it('a drain overlapping a slow write still lands its records after it (file order = enqueue order)', async () => {
    const p = file();
    const w = await RolloutWriter.open(p, DEFAULT_POLICY, new ManualClock());
    const slowWrite = held();
    tap(w, { write: slowWrite });
    w.enqueue(Array.from({ length: 32 }, (_, i) => user(i))); // commit 1: its write hangs
    await slowWrite.entered;
    w.enqueue([user(99)]);
    const drained = w.drain();
    await turn(); // the drain's own commit is under way: an unordered write would go out now
    slowWrite.release();
    await drained;
    expect(parseRecords(readFileSync(p, 'utf8')).records.map((r) => r.ts)).toEqual([...Array.from({ length: 32 }, (_, i) => i), 99]);
    await w.close();
  });

  it('drain resolves only when everything enqueued before it is durable', async () => {
    const clock = new ManualClock();
    const p = file();
    const w = await RolloutWriter.open(p, DEFAULT_POLICY, clock);
    for (let i = 0; i < 100; i++) w.enqueue([user(i)]);
    const d = w.drain();
    w.enqueue([user(999)]);
    await d;
    expect(onDisk(p)).toBeGreaterThanOrEqual(100);
    expect(parseRecords(readFileSync(p, 'utf8')).records.slice(0, 100).map((r) => r.ts)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await w.close();
    expect(onDisk(p)).toBe(101);
  });

  it('reading your own writes without draining misses records (the bug drain exists to prevent)', async () => {
    const clock = new ManualClock();
    const s = storeIn(t.dir, { clock });
    const h = await s.openRollout(meta());
    await s.appendRollout(h.path, [user(1), user(2)]);
    const before = parseRecords(readFileSync(h.path, 'utf8')).records.length;
    await s.drain(h.path);
    const after = parseRecords(readFileSync(h.path, 'utf8')).records.length;
    expect(before).toBeLessThan(3);
    expect(after).toBe(3);
    await s.shutdown();
  });

  it('bounded queue: appendRollout waits while the buffer is over its bound, then continues', async () => {
    const clock = new ManualClock();
    const s = storeIn(t.dir, { clock, policy: { maxQueuedRecords: 40, batchRecords: 1000 } });
    const h = await s.openRollout(meta({ sessionId: 'bounded' }));
    let done = false;
    const p = s.appendRollout(h.path, Array.from({ length: 60 }, (_, i) => user(i))).then(() => (done = true));
    await turn(); // the append is enqueue + waitForSpace, no I/O: a non-waiting one has resolved by now
    expect(done).toBe(false);
    await s.drain(h.path);
    await p;
    expect(done).toBe(true);
    await s.shutdown();
  });

  it('bounded queue by bytes: a few large records make appendRollout wait until a commit takes them', async () => {
    const clock = new ManualClock();
    const s = storeIn(t.dir, { clock, policy: { maxQueuedBytes: 64 * 1024 } });
    const h = await s.openRollout(meta({ sessionId: 'bounded-bytes' }));
    const big = (i: number): RolloutRecord => ({ type: 'response_item', ts: i, payload: { role: 'tool', toolCallId: `c${i}`, name: 'read_file', content: 'x'.repeat(20_000) } });
    await s.appendRollout(h.path, [big(1), big(2)]); // 40 KB: under the bound, returns at once
    let done = false;
    const p = s.appendRollout(h.path, [big(3), big(4)]).then(() => (done = true));
    await turn(); // as above: nothing but the bound can still hold it
    expect(done).toBe(false);
    await s.drain(h.path);
    await p;
    expect(done).toBe(true);
    await s.shutdown();
  });

  it('size cap: past maxFileBytes records are dropped, counted and marked once', async () => {
    const clock = new ManualClock();
    const p = file();
    const w = await RolloutWriter.open(p, { ...DEFAULT_POLICY, maxFileBytes: 1000 }, clock);
    w.enqueue(Array.from({ length: 40 }, (_, i) => user(i)));
    await w.close();
    const recs = parseRecords(readFileSync(p, 'utf8')).records;
    const markers = recs.filter((r) => r.type === 'event_msg' && r.payload.kind === 'rollout_capped');
    expect(markers).toHaveLength(1);
    expect(w.dropped).toBeGreaterThan(0);
    expect(recs.length - 1 + w.dropped).toBe(40);
  });

  it('a torn tail left by a crash does not swallow the first record appended after reopening', async () => {
    const p = file();
    writeFileSync(p, `${JSON.stringify(user(1))}\n`);
    appendFileSync(p, '{"type":"response_item","ts":2,"payl');
    const w = await RolloutWriter.open(p, DEFAULT_POLICY, new ManualClock());
    w.enqueue([user(3)]);
    await w.close();
    const { records, issues } = parseRecords(readFileSync(p, 'utf8'));
    expect(records.map((r) => r.ts)).toEqual([1, 3]);
    expect(issues.corruptLines).toBe(1);
  });
});
