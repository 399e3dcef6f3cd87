// Store suite: rollout group commit, drain latency, index build, replay, concurrent note writes and a note
// write beside a GC pass, each against the raw Node primitive doing the same work in the same run.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '../src/runtime/protocol/index.js';
import type { RolloutRecord } from '../src/store/api.js';
import { serializeNote } from '../src/store/blackboard/front-matter.js';
import { generateNoteStem } from '../src/store/blackboard/note-name.js';
import { readRolloutForReplay } from '../src/store/rollout/replay.js';
import { StoreService } from '../src/store/service.js';
import { alternate, figure, ms, pairedFigure, repeat, round, stats, type Figure, type Suite } from './lib.js';

const RUNS = 5;
const RECORDS = 10_000;
const payload = 'x'.repeat(160); // ~220 B per JSONL record, as in PERFORMANCE.md
const rec = (i: number): RolloutRecord => ({ type: 'response_item', ts: i, payload: { role: 'user', content: payload } });
const meta = (sessionId: string) => ({ sessionId, taskId: 't', agent: 'director', projectId: 'bench', cwd: '/', delegationId: null, parentSessionId: null, boardId: 'b' });

/** Counts fsyncs in this process while `fn` runs (the writer's group commits; FileHandle.sync is its only fsync). */
async function countingFsyncs<T>(dir: string, fn: () => Promise<T>): Promise<{ value: T; fsyncs: number }> {
  const probe = await fsp.open(join(dir, 'probe'), 'a');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  const original = proto.sync;
  let fsyncs = 0;
  proto.sync = function (this: unknown) {
    fsyncs++;
    return original.call(this);
  };
  try {
    return { value: await fn(), fsyncs };
  } finally {
    proto.sync = original;
  }
}

/** The same records in `batches` equal writes, one fsync each: exactly as many fsyncs as the writer did. */
async function rawBatchedRecordsPerSec(dir: string, batches: number): Promise<number> {
  const fh = await fsp.open(join(dir, `raw-${Math.random()}.jsonl`), 'a');
  const per = Math.ceil(RECORDS / Math.max(1, batches));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < RECORDS; i += per) {
    await fh.write(Array.from({ length: Math.min(per, RECORDS - i) }, (_, k) => `${JSON.stringify(rec(i + k))}\n`).join(''));
    await fh.sync();
  }
  const el = ms(t0);
  await fh.close();
  return RECORDS / (el / 1000);
}

/** The records' path only: the session's open (its git identity read, its session_meta line and fsync) is done
 *  before the clock starts, as the raw side opens its file before its clock. */
async function storeRecordsPerSec(s: StoreService, dir: string): Promise<{ value: number; fsyncs: number }> {
  const h = await s.openRollout(meta(`tp-${Math.random()}`));
  await s.drain(h.path);
  return countingFsyncs(dir, async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < RECORDS; i += 8) await s.appendRollout(h.path, Array.from({ length: 8 }, (_, k) => rec(i + k)));
    await s.drain(h.path);
    return RECORDS / (ms(t0) / 1000);
  });
}

/** Alternating samples: the writer (its fsyncs counted), then a raw loop doing the same records and fsyncs. */
async function throughputFigure(s: StoreService, dir: string): Promise<Figure> {
  const ours: number[] = [];
  const raw: number[] = [];
  const commits: number[] = [];
  await storeRecordsPerSec(s, dir);
  for (let i = 0; i < RUNS; i++) {
    const r = await storeRecordsPerSec(s, dir);
    ours.push(r.value);
    commits.push(r.fsyncs);
    raw.push(await rawBatchedRecordsPerSec(dir, r.fsyncs));
  }
  const c = stats(commits).median;
  return pairedFigure('durable_records_per_s', 'records/s', ours, raw, '>= 50% of raw batched write+fsync', (v, b) => v >= 0.5 * b, `raw: the same ${RECORDS} records in as many write+fsync batches as the writer's group commits (median ${c}; pair with the median ratio)`);
}

/** Records/s of the paced producer: PERFORMANCE.md's measured pipeline figure (event-to-disk p99 at 40 k ev/s). */
const LOAD_RATE = 40_000;

/**
 * drain() latency while a producer appends 4 records at a time at `rate`; a raw fsync of one record on another
 * file is sampled between drains, so both feel the same disk and CPU load (this machine is shared; a baseline
 * taken at another moment is not comparable).
 */
async function drainUnderLoad(s: StoreService, dir: string, rate: number): Promise<{ drains: number[]; fsyncs: number[]; rate: number }> {
  const h = await s.openRollout(meta(`drain-${Math.random()}`));
  const raw = await fsp.open(join(dir, `fsync-${Math.random()}.bin`), 'a');
  let stop = false;
  let i = 0;
  const t0 = process.hrtime.bigint();
  const producer = (async () => {
    while (!stop) {
      const due = Math.floor((ms(t0) * rate) / 1000);
      while (i < due && !stop) await s.appendRollout(h.path, Array.from({ length: 4 }, () => rec(i++)));
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
  const drains: number[] = [];
  const fsyncs: number[] = [];
  for (let k = 0; k < 200; k++) {
    let t = process.hrtime.bigint();
    await s.drain(h.path);
    drains.push(ms(t));
    t = process.hrtime.bigint();
    await raw.write(`${JSON.stringify(rec(k))}\n`);
    await raw.sync();
    fsyncs.push(ms(t));
    await new Promise((r) => setTimeout(r, 1));
  }
  stop = true;
  await producer;
  const achieved = i / (ms(t0) / 1000);
  await raw.close();
  return { drains, fsyncs, rate: achieved };
}

function seedBoard(notes: string, n: number): void {
  const dir = join(notes, 'big', 'repo');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const h = { version: 2 as const, agent: 'repo', status: 'ok' as const, conclusion: `note ${i} conclusion`, facts: [], artifacts: [], mentions: [] };
    writeFileSync(join(dir, `${generateNoteStem(Date.UTC(2026, 0, 1) + i * 1000)}.md`), serializeNote({ handoff: h, createdAt: '', bodySize: 300 }, 'b'.repeat(300)));
  }
}

function seedRollout(dir: string): string {
  const p = join(dir, 'data', 'rollout', 'bench', 'replay.jsonl');
  mkdirSync(join(dir, 'data', 'rollout', 'bench'), { recursive: true });
  const lines: string[] = [JSON.stringify({ type: 'session_meta', ts: 0, payload: meta('replay') })];
  for (let i = 0; i < 2000; i++) {
    const m: ChatMessage = i % 3 === 0 ? { role: 'assistant', content: 'answer '.repeat(20), reasoning: [{ text: 'think '.repeat(20) }] } : i % 3 === 1 ? { role: 'tool', toolCallId: `c${i}`, name: 'read_file', content: 'line\n'.repeat(100) } : { role: 'user', content: 'question '.repeat(10) };
    lines.push(JSON.stringify({ type: 'response_item', ts: i, payload: m }));
  }
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

/** A pass that keeps everything: the recurring cost of the scheduled GC over the seeded 10k-note board. */
const KEEP_ALL = { ttlMs: 3650 * 24 * 3_600_000, maxNotesPerBoard: 1_000_000 };
const note = (i: number) => ({ boardId: 'gc-writes', agent: 'repo', handoff: { version: 2 as const, agent: 'repo', status: 'ok' as const, conclusion: `w${i}`, facts: [], artifacts: [], mentions: [] }, body: 'b' });

async function gcWriteFigure(s: StoreService): Promise<Figure> {
  let i = 0;
  const alone = await repeat(RUNS, async () => {
    const t0 = process.hrtime.bigint();
    await s.writeNote(note(i++));
    return ms(t0);
  });
  let waited = 0;
  const during = await repeat(RUNS, async () => {
    const t0 = process.hrtime.bigint();
    let passMs = Number.POSITIVE_INFINITY;
    const pass = s.gcNotes(KEEP_ALL).then(() => (passMs = ms(t0)));
    const t1 = process.hrtime.bigint();
    await s.writeNote(note(i++));
    const w = ms(t1);
    await pass;
    if (w >= passMs) waited++;
    return w;
  });
  return figure('note_write_during_gc_pass', 'ms', during, 'every write ends before the pass it overlaps (never queued behind GC)', () => waited === 0, { label: 'note write with no GC pass', value: stats(alone).median });
}

const suite: Suite = {
  name: 'store',
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'yagent-bench-store-'));
    try {
      const s = new StoreService({ env: { YAGENT_HOME: dir } });
      const throughput = await throughputFigure(s, dir);

      const paced = await drainUnderLoad(s, dir, LOAD_RATE);
      const dst = stats(paced.drains);
      const fsyncP99 = stats(paced.fsyncs).p99;
      const drainFig = figure('drain_p99_under_load', 'ms', { ...dst, median: dst.p99 }, `<= 20 ms + fsync p99 (producer at ${Math.round(paced.rate)} records/s)`, (v, b) => v <= 20 + (b ?? 0), { label: 'raw fsync p99, sampled between the drains', value: fsyncP99 });

      seedBoard(s.notesRoot, 10_000);
      const bigBoard = join(s.notesRoot, 'big', 'repo');
      // the path a run pays: the board changed since the last build (a new note), so it is listed again
      // and the newest 12 decoded; the raw floor lists the dir and reads those 12 files
      // CPU time beside the wall time (stderr): on a loaded 2-core box the wall figure is mostly waiting for a core
      const cpuMs = (): number => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };
      const cpu = { ours: [] as number[], raw: [] as number[] };
      const rawIndex = async (): Promise<number> => {
        const c0 = cpuMs();
        const t0 = process.hrtime.bigint();
        const newest = readdirSync(bigBoard).filter((n) => n.endsWith('.md')).sort().slice(-12);
        for (const n of newest) readFileSync(join(bigBoard, n), 'utf8');
        const took = ms(t0);
        cpu.raw.push(cpuMs() - c0);
        return took;
      };
      let external = 0;
      const addNote = (): void => {
        external++;
        const h = { version: 2 as const, agent: 'repo', status: 'ok' as const, conclusion: `external ${external}`, facts: [], artifacts: [], mentions: [] };
        writeFileSync(join(bigBoard, `${generateNoteStem(Date.UTC(2027, 0, 1) + external * 1000)}.md`), serializeNote({ handoff: h, createdAt: '', bodySize: 1 }, 'b'));
      };
      const ourIndex = async (): Promise<number> => {
        const c0 = cpuMs();
        const t0 = process.hrtime.bigint();
        const r = await s.buildIndex('big', { maxNotes: 12, maxLineChars: 160 });
        const took = ms(t0);
        cpu.ours.push(cpuMs() - c0);
        if (r.listed !== 12 || r.total !== 10_000 + external || !r.text.includes(`external ${external}`)) throw new Error('index missed a note written before the call');
        return took;
      };
      const rawIdx: number[] = [];
      const idx: number[] = [];
      addNote();
      await ourIndex();
      cpu.ours.length = 0;
      // each pair follows a note written by another writer (the board changed: both sides list it again), order swapped
      for (let i = 0; i < RUNS; i++) {
        addNote();
        if (i % 2 === 0) {
          idx.push(await ourIndex());
          rawIdx.push(await rawIndex());
        } else {
          rawIdx.push(await rawIndex());
          idx.push(await ourIndex());
        }
      }
      process.stderr.write(`store: index 10k notes wall ${round(stats(idx).median)} ms vs raw ${round(stats(rawIdx).median)} ms; CPU ${round(stats(cpu.ours).median)} ms vs raw ${round(stats(cpu.raw).median)} ms\n`);
      const idxFig = figure('index_build_10k_notes', 'ms', idx, '<= 10 ms', (v) => v <= 10, { label: 'raw readdir of the 10,000-note dir + read of the newest 12', value: stats(rawIdx).median });

      const rp = seedRollout(dir);
      const [replay, rawReplay] = await alternate(
        RUNS,
        async () => {
          const t0 = process.hrtime.bigint();
          const r = await readRolloutForReplay(rp, 0);
          if (!r.ok || r.messages.length !== 2000) throw new Error('replay miscounted');
          return ms(t0);
        },
        async () => {
          const t0 = process.hrtime.bigint();
          const text = await fsp.readFile(rp, 'utf8');
          for (const l of text.split('\n')) if (l) JSON.parse(l);
          return ms(t0);
        },
      );
      const replayFig = pairedFigure('replay_2000_messages', 'ms', replay, rawReplay, '<= 50 ms', (v) => v <= 50, 'raw readFile + JSON.parse per line (pair with the median ratio)');

      let board = 0;
      const body = 'deliverable '.repeat(50);
      const rawNotes = async (): Promise<number> => {
        const d = join(dir, `rawnotes-${board++}`);
        mkdirSync(d);
        const t0 = process.hrtime.bigint();
        await Promise.all(Array.from({ length: 200 }, async (_, i) => {
          const fh = await fsp.open(join(d, `${i}.md`), 'w');
          await fh.writeFile(body);
          await fh.sync();
          await fh.close();
        }));
        return ms(t0);
      };
      let lost = 0;
      const ourNotes = async (): Promise<number> => {
        const id = `conc-${board++}`;
        const t0 = process.hrtime.bigint();
        await Promise.all(Array.from({ length: 200 }, (_, i) => s.writeNote({ boardId: id, agent: 'repo', handoff: { version: 2, agent: 'repo', status: 'ok', conclusion: `c${i}`, facts: [], artifacts: [], mentions: [] }, body })));
        const el = ms(t0);
        lost += 200 - readdirSync(join(s.notesRoot, id, 'repo')).length;
        return el;
      };
      const [notes, raws] = await alternate(RUNS, ourNotes, rawNotes);
      const notesFig = figure('concurrent_note_writes_200', 'ms', notes, '0 lost; atomic (tmp+fsync+link+dir fsync)', () => lost === 0, { label: '200 concurrent raw open+write+fsync', value: stats(raws).median });
      const gcWriteFig = await gcWriteFigure(s);
      await s.shutdown();
      return [throughput, drainFig, idxFig, replayFig, notesFig, gcWriteFig];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default suite;
