// Log files written by the store: names per kind and day, modes, rotation by size, retention, one redactor.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogLine } from '../../src/store/api.js';
import { storeInputFromConfig } from '../../src/store/client.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { StoreActorInputSchema } from '../../src/store/store-actor.js';
import { cfg } from '../config/helpers.js';
import { meta, handoff, storeIn, tempRoot } from './helpers.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-10T12:00:00Z');
const KEY = 'sk-known-test-key-0123456789';
let t: ReturnType<typeof tempRoot>;
beforeEach(() => (t = tempRoot()));
afterEach(() => t.cleanup());

const line = (kind: LogLine['kind'], msg: string, over: Partial<LogLine> = {}): LogLine => ({ kind, level: 'info', event: 'test', msg, ...over });
const read = (name: string): Record<string, unknown>[] =>
  readFileSync(join(t.dir, 'logs', name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('log files', () => {
  it('one JSONL file per kind and day under logs/, 0600 in a 0700 dir, lines in order with ISO time', async () => {
    const clock = new ManualClock(T0);
    const s = storeIn(t.dir, { clock });
    await s.appendLogs([line('app', 'a1'), line('llm', 'l1', { taskId: 'task-1', agent: 'director', data: { model: 'm' } }), line('app', 'a2', { level: 'warn' })]);
    await s.appendLogs([line('tool', 't1'), line('delegate', 'd1'), line('llm-error', 'e1', { level: 'error' })]);
    expect(readdirSync(join(t.dir, 'logs')).sort()).toEqual(['app-2026-03-10.jsonl', 'delegate-2026-03-10.jsonl', 'llm-2026-03-10.jsonl', 'llm-error-2026-03-10.jsonl', 'tool-2026-03-10.jsonl']);
    expect(statSync(join(t.dir, 'logs', 'llm-error-2026-03-10.jsonl')).mode & 0o777).toBe(0o600);
    expect(read('app-2026-03-10.jsonl').map((l) => [l.msg, l.level])).toEqual([['a1', 'info'], ['a2', 'warn']]);
    expect(read('llm-2026-03-10.jsonl')[0]).toEqual({ kind: 'llm', level: 'info', event: 'test', msg: 'l1', taskId: 'task-1', agent: 'director', data: { model: 'm' }, ts: '2026-03-10T12:00:00.000Z' });
    expect(statSync(join(t.dir, 'logs')).mode & 0o777).toBe(0o700);
    expect(statSync(join(t.dir, 'logs', 'app-2026-03-10.jsonl')).mode & 0o777).toBe(0o600);
    clock.advance(DAY);
    await s.appendLogs([line('app', 'next day')]);
    expect(read('app-2026-03-11.jsonl').map((l) => l.msg)).toEqual(['next day']);
  });

  it('a file that would pass max size continues in the next .N file; a restarted store continues the newest one', async () => {
    const clock = new ManualClock(T0);
    const opts = { clock, logs: { keepDays: 7, maxFileBytes: 300 } };
    const s = storeIn(t.dir, opts);
    for (let i = 0; i < 6; i++) await s.appendLogs([line('llm', `call ${i} ${'x'.repeat(60)}`)]);
    const files = readdirSync(join(t.dir, 'logs')).sort();
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) expect(statSync(join(t.dir, 'logs', f)).size).toBeLessThanOrEqual(300);
    const again = storeIn(t.dir, opts);
    await again.appendLogs([line('llm', 'after restart')]);
    const newest = readdirSync(join(t.dir, 'logs')).sort((a, b) => a.length - b.length || a.localeCompare(b)).at(-1) ?? '';
    expect(read(newest).at(-1)?.msg).toBe('after restart');
    const all = readdirSync(join(t.dir, 'logs')).flatMap((f) => read(f).map((l) => String(l.msg)));
    expect(all.filter((m) => m.startsWith('call '))).toHaveLength(6);
  });

  it('llm-error rotates on its own: a restarted store continues its newest .N file, and llm is not mistaken for it', async () => {
    const clock = new ManualClock(T0);
    const opts = { clock, logs: { keepDays: 7, maxFileBytes: 300 } };
    const s = storeIn(t.dir, opts);
    for (let i = 0; i < 6; i++) await s.appendLogs([line('llm-error', `fail ${i} ${'x'.repeat(60)}`)]);
    const again = storeIn(t.dir, opts);
    await again.appendLogs([line('llm-error', 'after restart'), line('llm', 'a call')]);
    const names = readdirSync(join(t.dir, 'logs'));
    const errs = names.filter((n) => n.startsWith('llm-error-')).sort((a, b) => a.length - b.length || a.localeCompare(b));
    expect(errs.length).toBeGreaterThan(1);
    for (const f of errs) expect(statSync(join(t.dir, 'logs', f)).size).toBeLessThanOrEqual(300);
    expect(read(errs.at(-1) ?? '').at(-1)?.msg).toBe('after restart');
    expect(names.filter((n) => /^llm-\d/.test(n))).toEqual(['llm-2026-03-10.jsonl']);
    expect(read('llm-2026-03-10.jsonl').map((l) => l.msg)).toEqual(['a call']);
  });

  it('files older than keep_days are removed at the first write of a day; 0 keeps everything', async () => {
    mkdirSync(join(t.dir, 'logs'), { recursive: true });
    for (const name of ['app-2026-03-01.jsonl', 'llm-2026-03-02.1.jsonl', 'llm-error-2026-03-02.jsonl', 'tool-2026-03-03.jsonl', 'notes.txt']) writeFileSync(join(t.dir, 'logs', name), '{}\n');
    await storeIn(t.dir, { clock: new ManualClock(T0), logs: { keepDays: 0, maxFileBytes: 1000 } }).appendLogs([line('app', 'x')]);
    expect(readdirSync(join(t.dir, 'logs'))).toHaveLength(6);
    await storeIn(t.dir, { clock: new ManualClock(T0), logs: { keepDays: 7, maxFileBytes: 1000 } }).appendLogs([line('app', 'x')]);
    expect(readdirSync(join(t.dir, 'logs')).sort()).toEqual(['app-2026-03-10.jsonl', 'notes.txt', 'tool-2026-03-03.jsonl']);
  });

  it('[logs] keep_days / max_file_mb and every provider key reach the store input through storeInputFromConfig', () => {
    const input = storeInputFromConfig(cfg('[logs]\nkeep_days = 0\nmax_file_mb = 3\n'));
    expect(input.logs).toEqual({ keepDays: 0, maxFileBytes: 3 * 1024 * 1024 });
    expect(input.secrets).toEqual(['k']);
    expect(storeInputFromConfig(cfg()).logs).toEqual({ keepDays: 7, maxFileBytes: 10 * 1024 * 1024 });
    expect(StoreActorInputSchema.parse(input)).toMatchObject({ logs: input.logs, secrets: ['k'] });
  });

  it('[undo] keys reach the store input (enable, keep_days, max_mb; 0 keeps everything); a negative one is refused', () => {
    const input = storeInputFromConfig(cfg('[undo]\nenable = false\nkeep_days = 0\nmax_mb = 5\n'));
    expect(input.undo).toEqual({ enabled: false, keepDays: 0, maxBytes: 5 * 1024 * 1024 });
    expect(storeInputFromConfig(cfg()).undo).toEqual({ enabled: true, keepDays: 7, maxBytes: 1024 * 1024 * 1024 });
    expect(StoreActorInputSchema.parse(input)).toMatchObject({ undo: input.undo });
    expect(() => cfg('[undo]\nkeep_days = -1\n')).toThrow(/keep_days/);
  });

  it('every line passes the redactor: configured keys, env secrets, bearer tokens and authorization headers never reach a file', async () => {
    const s = storeIn(t.dir, { clock: new ManualClock(T0), secrets: [KEY], env: { YAGENT_HOME: t.dir, MY_TOKEN: 'env-secret-value-42' } });
    await s.appendLogs([
      line('llm', `request failed with key ${KEY}`, { data: { headers: { authorization: `Bearer ${KEY}`, 'x-api-key': 'abcdefgh1234' }, env: 'env-secret-value-42' } }),
      line('tool', 'curl -H "Authorization: Bearer tok_live_998877"'),
    ]);
    const h = await s.openRollout(meta());
    await s.appendRollout(h.path, [{ type: 'response_item', ts: 1, payload: { role: 'assistant', content: `the key is ${KEY}` } }]);
    await s.drain(h.path);
    await s.writeNote({ boardId: 'b1', agent: 'repo', handoff: handoff({ conclusion: `found ${KEY}`, facts: ['env-secret-value-42'] }), body: `body ${KEY}` });
    await s.writeArtifact(`artifact ${KEY}`);
    await s.recordTimeline('task-1', { ts: 'x', type: 'delegation', agent: 'repo', callId: 'c', phase: 'start', status: KEY } as never);
    const texts = walk(t.dir).map((f) => readFileSync(f, 'utf8'));
    expect(texts.length).toBeGreaterThanOrEqual(5);
    for (const secret of [KEY, 'env-secret-value-42', 'tok_live_998877', 'abcdefgh1234']) expect(texts.filter((x) => x.includes(secret))).toEqual([]);
    expect(texts.join('\n')).toContain('[REDACTED]');
  });
});

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}
