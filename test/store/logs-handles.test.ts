// Issue 29: a log file's descriptor stays open between appends (one write, not open + write + close), and nothing is
// lost for it: lines appended just before shutdown are on disk, a file removed under the store is written again.
import { readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogLine } from '../../src/store/api.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { storeIn, tempRoot } from './helpers.js';

const T0 = Date.parse('2026-03-10T12:00:00Z');
let t: ReturnType<typeof tempRoot>;
beforeEach(() => (t = tempRoot()));
afterEach(() => t.cleanup());

const line = (msg: string): LogLine => ({ kind: 'app', level: 'info', event: 'test', msg });
const file = (): string => join(t.dir, 'logs', 'app-2026-03-10.jsonl');
const msgs = (): string[] => readFileSync(file(), 'utf8').trim().split('\n').map((l) => String((JSON.parse(l) as { msg: string }).msg));
/** Descriptors of this process open on `path` (Linux). */
const opened = (path: string): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(join('/proc/self/fd', fd)) === path;
    } catch {
      return false;
    }
  }).length;

describe('log file descriptors', () => {
  it('one descriptor per file across appends, closed at shutdown; lines appended just before shutdown are on disk', async () => {
    const s = storeIn(t.dir, { clock: new ManualClock(T0) });
    await s.appendLogs([line('a1')]);
    await s.appendLogs([line('a2')]);
    expect(opened(file())).toBe(1);
    const pending = [s.appendLogs([line('a3')]), s.appendLogs([line('a4'), line('a5')])]; // not awaited before shutdown
    await s.shutdown();
    expect(msgs()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(opened(file())).toBe(0);
    await Promise.all(pending);
  });

  it('a log file removed between two appends is created again (no line goes to an unlinked file)', async () => {
    const s = storeIn(t.dir, { clock: new ManualClock(T0) });
    await s.appendLogs([line('gone')]);
    rmSync(file());
    await s.appendLogs([line('kept')]);
    expect(msgs()).toEqual(['kept']);
    await s.shutdown();
  });
});
