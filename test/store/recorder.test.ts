// The store as a recorder: one handle per file, acknowledged flush/shutdown, every reader drains, the persistence policy.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STOP_REASONS } from '../../src/runtime/protocol/index.js';
import type { RolloutRecord } from '../../src/store/api.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { parseRecords } from '../../src/store/rollout/lines.js';
import type { StoreService } from '../../src/store/service.js';
import { meta, storeIn, tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());
let n = 0;
const session = (): string => `rec-${++n}`;
const user = (i: number): RolloutRecord => ({ type: 'response_item', ts: i, payload: { role: 'user', content: `m${i}` } });
const onDisk = (p: string): RolloutRecord[] => parseRecords(readFileSync(p, 'utf8')).records;
/** Open descriptors of this process that point at `path` (Linux /proc). */
const handlesTo = (path: string): number => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === path;
  } catch {
    return false;
  }
}).length;

/** A store whose batch timer never fires: records stay buffered until someone drains. */
async function buffered(records: RolloutRecord[]): Promise<{ s: StoreService; path: string }> {
  const s = storeIn(t.dir, { clock: new ManualClock() });
  const h = await s.openRollout(meta({ sessionId: session() }));
  await s.appendRollout(h.path, records);
  expect(onDisk(h.path)).toHaveLength(0);
  return { s, path: h.path };
}

const stopped: RolloutRecord = { type: 'event_msg', ts: 9, payload: { kind: 'task_end', stopReason: 'paused' } };

describe('the store as a recorder', () => {
  it('every reader of a rollout drains it first: replay, summary and stop facts see records still buffered', async () => {
    const a = await buffered([user(1), user(2), stopped]);
    expect(await a.s.readStopFacts(a.path)).toMatchObject({ found: true, stopReason: 'paused' });
    const b = await buffered([user(1), user(2), stopped]);
    expect((await b.s.readSummary(b.path)).messages).toHaveLength(2);
    const c = await buffered([user(1), user(2), stopped]);
    const r = await c.s.readReplay(c.path);
    expect(r.ok && r.messages).toHaveLength(2);
    for (const x of [a, b, c]) await x.s.shutdown();
  });

  it('flush() resolves only once every buffered rollout record is on disk', async () => {
    const { s, path } = await buffered([user(1), user(2), user(3)]);
    await s.flush();
    expect(onDisk(path).map((r) => r.type)).toEqual(['session_meta', 'response_item', 'response_item', 'response_item']);
    await s.shutdown();
  });

  it('shutdown() resolves once buffered records are durable and the handle is released; later writes are refused', async () => {
    const { s, path } = await buffered([user(1), user(2)]);
    expect(handlesTo(path)).toBe(1);
    await s.shutdown();
    expect(onDisk(path)).toHaveLength(3);
    expect(handlesTo(path)).toBe(0);
    await expect(s.appendRollout(path, [user(3)])).rejects.toMatchObject({ code: 'SHUT_DOWN' });
  });

  it('one owner per file handle: concurrent first appends to a rollout share one handle and keep their order', async () => {
    const first = storeIn(t.dir);
    const h = await first.openRollout(meta({ sessionId: session() }));
    await first.shutdown();
    const s = storeIn(t.dir, { clock: new ManualClock() });
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.appendRollout(h.path, [user(i)])));
    expect(handlesTo(h.path)).toBe(1);
    await s.drain(h.path);
    expect(onDisk(h.path).slice(1).map((r) => r.ts)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    await s.shutdown();
  });

  it('persistence policy: stream chunks never reach the ledger, facts do', async () => {
    const { s, path } = await buffered([
      { type: 'event_msg', ts: 1, payload: { kind: 'ai_chunk', detail: 'tok' } },
      user(2),
      stopped,
    ]);
    await s.drain(path);
    const kinds = onDisk(path).flatMap((r) => (r.type === 'event_msg' ? [r.payload.kind] : []));
    expect(kinds).toEqual(['task_end']);
    await s.shutdown();
  });

  it('path {root}/data/rollout/{projectID}/{ts}_{session}[_{agent}].jsonl, session_meta first with cwd, delegation, parent and board', async () => {
    const s = storeIn(t.dir, { clock: new ManualClock(Date.UTC(2026, 1, 3, 4, 5, 6)) });
    const m = meta({ sessionId: 'child-1', agent: 'repo', delegationId: 'call-7', parentSessionId: 'sess-1', boardId: 'sess-1' });
    const h = await s.openRollout(m, { agentSuffix: true });
    expect(h.path).toBe(join(t.dir, 'data', 'rollout', 'proj-abc', '20260203T040506Z_child-1_repo.jsonl'));
    await s.drain(h.path);
    const [first] = onDisk(h.path);
    expect(first).toMatchObject({ type: 'session_meta', payload: { cwd: '/tmp/ws', delegationId: 'call-7', parentSessionId: 'sess-1', boardId: 'sess-1' } });
    expect(await s.listRollouts('proj-abc')).toContain(h.path);
    await s.shutdown();
  });

  it('terminal records carry a stop_reason from the seeds vocabulary, and nothing else is accepted', async () => {
    expect([...STOP_REASONS]).toEqual([
      'paused', 'cancelled', 'idle_timeout', 'total_timeout', 'max_steps', 'llm_error', 'circuit_breaker_open', 'panic',
      'plain_text', 'agent_exit', 'unaccounted',
    ]);
    const { s, path } = await buffered([user(1)]);
    await s.shutdown();
    const bogus = JSON.stringify({ type: 'event_msg', ts: 2, payload: { kind: 'task_end', stopReason: 'finished' } });
    expect(parseRecords(`${readFileSync(path, 'utf8')}${bogus}\n`).issues.corruptLines).toBe(1);
  });
});
