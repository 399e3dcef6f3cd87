import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ARTIFACT_ID_RE } from '../../src/store/artifacts.js';
import { atomicWrite } from '../../src/store/atomic-write.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { settingsPath } from '../../src/store/data-paths.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { TaskMemoryStore, taskMemoryPath, taskMemoryTaskName } from '../../src/store/task-memory.js';
import { storeIn, tempRoot } from './helpers.js';

const t = tempRoot();
afterAll(() => t.cleanup());
const mem = (n: number) => ({ messages: Array.from({ length: n }, (_, i) => ({ role: 'user' as const, content: `m${i}` })), max_size: 50 });

describe('artifacts', () => {
  it('ids match ^\\d{8}-\\d{6}-[0-9a-f]{8}$, writes are atomic and reads are paged', async () => {
    const s = storeIn(t.dir);
    const text = 'abcdefghij'.repeat(100);
    const id = await s.writeArtifact(text);
    expect(id).toMatch(ARTIFACT_ID_RE);
    expect(readdirSync(join(t.dir, 'data', 'artifacts'))).toEqual([id]);
    const p1 = await s.readArtifact(id, 0, 300);
    expect(p1).toMatchObject({ total: 1000, nextOffset: 300 });
    const p4 = await s.readArtifact(id, 900, 300);
    expect(p4).toMatchObject({ text: text.slice(900), nextOffset: null });
  });

  it('a PNG image (a screenshot) is stored as its bytes, 0600, and read back as a one-line description, never as bytes; other bytes are refused', async () => {
    const s = storeIn(t.dir);
    // signature, then the IHDR chunk: length 13, type, width 1280, height 800 (what the store reads back)
    const png = Buffer.alloc(64, 7);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
    png.writeUInt32BE(13, 8);
    png.write('IHDR', 12, 'latin1');
    png.writeUInt32BE(1280, 16);
    png.writeUInt32BE(800, 20);
    const id = await s.writeImageArtifact(png);
    expect(id).toMatch(ARTIFACT_ID_RE);
    const file = join(t.dir, 'data', 'artifacts', id);
    expect(readFileSync(file).equals(png)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const page = await s.readArtifact(id);
    expect(page).toMatchObject({ nextOffset: null });
    expect(page.text).toBe(`[artifact ${id} is a PNG image, 1280×800 px, ${png.length} bytes: it has no text to read]`);
    // only images may skip the text redactor
    await expect(s.writeImageArtifact(Buffer.from('api_key = sk-not-an-image-at-all-but-long-enough'))).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('refuses ids that are not artifact ids (no path traversal) and reports missing ones', async () => {
    const s = storeIn(t.dir);
    await expect(s.readArtifact('../../settings.json')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(s.readArtifact('20260101-000000-00000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('task memory', () => {
  it('debounces 5 s on the injected clock: only the last snapshot is written', async () => {
    const clock = new ManualClock();
    const tasks = createTaskGroup({ clock });
    const s = storeIn(t.dir, { clock, tasks });
    await s.saveTaskMemory('T1', mem(1));
    clock.advance(4000);
    await s.saveTaskMemory('T1', mem(2));
    clock.advance(4999);
    expect(tasks.running()).toEqual([]);
    expect(() => statSync(taskMemoryPath(t.dir, 'T1'))).toThrow();
    clock.advance(1);
    expect(tasks.running()).toEqual([taskMemoryTaskName('T1')]); // the debounce fired: its write is a named task
    expect(await tasks.waitAll(1000)).toEqual([]); // its timeout is on the manual clock: this waits for the write itself
    expect(readFileSync(taskMemoryPath(t.dir, 'T1'), 'utf8').trim().split('\n')).toHaveLength(3);
    expect(await s.loadTaskMemory('T1')).toEqual(mem(2));
  });

  it('flush-all continues past the first failure and reports every one', async () => {
    const written: string[] = [];
    const store = new TaskMemoryStore(t.dir, new ManualClock(), 5000, async (p) => {
      if (p.includes('bad')) throw new Error(`disk full for ${p}`);
      written.push(p);
    });
    for (const id of ['bad1', 'ok1', 'bad2', 'ok2']) store.save(id, mem(1));
    const r = await store.flushAll();
    expect(r.failed.map((f) => f.taskId)).toEqual(['bad1', 'bad2']);
    expect(r.written).toEqual(['ok1', 'ok2']);
    expect(written).toHaveLength(2);
  });
});

describe('task memory: the debounced write is a named task', () => {
  it('flush-all (and so shutdown) waits for a debounced write already in flight', async () => {
    const clock = new ManualClock();
    let release: () => void = () => undefined;
    const written: string[] = [];
    const store = new TaskMemoryStore(t.dir, clock, 5000, async (p) => {
      await new Promise<void>((r) => (release = r));
      written.push(p);
    });
    store.save('T-held', mem(1));
    clock.advance(5000);
    let flushed = false;
    const all = store.flushAll().then((r) => ((flushed = true), r));
    await new Promise((r) => setImmediate(r));
    expect(flushed).toBe(false);
    release();
    expect(await all).toEqual({ written: [], failed: [] });
    expect(written).toEqual([taskMemoryPath(t.dir, 'T-held')]);
  });

  it('saves of one task are serialised: a slow older write never lands after a newer snapshot', async () => {
    const clock = new ManualClock();
    const releases: (() => void)[] = [];
    let active = 0;
    let maxActive = 0;
    const store = new TaskMemoryStore(t.dir, clock, 5000, async (p, text) => {
      maxActive = Math.max(maxActive, ++active);
      // the first write is held until the test releases it; later ones go straight through
      if (releases.length === 0) await new Promise<void>((r) => releases.push(r));
      else releases.push(() => undefined);
      await atomicWrite(p, text);
      active--;
    });
    store.save('T-order', mem(1));
    clock.advance(5000);
    await new Promise((r) => setImmediate(r));
    store.save('T-order', mem(2));
    clock.advance(5000);
    await new Promise((r) => setImmediate(r)); // an unserialised second write would have started by now (no I/O before it)
    releases[0]?.();
    expect(await store.flushAll()).toEqual({ written: [], failed: [] });
    expect(maxActive).toBe(1);
    expect(await store.load('T-order')).toEqual(mem(2));
  });

  it('a failed debounced write is reported by its named task and kept for flush-all to retry', async () => {
    const clock = new ManualClock();
    const tasks = createTaskGroup();
    let calls = 0;
    const store = new TaskMemoryStore(t.dir, clock, 5000, async () => {
      if (++calls === 1) throw new Error('disk full');
    }, tasks);
    store.save('T-fail', mem(1));
    clock.advance(5000);
    expect(tasks.running()).toEqual([taskMemoryTaskName('T-fail')]);
    expect(await tasks.waitAll(2000)).toEqual([]);
    expect(tasks.failures().map((f) => f.name)).toEqual([taskMemoryTaskName('T-fail')]);
    expect(store.pendingCount).toBe(1);
    expect(await store.flushAll()).toEqual({ written: ['T-fail'], failed: [] });
  });
});

describe('settings.json', () => {
  it('authorized_projects is written through the store (0600), unknown keys kept, a broken file tolerated', async () => {
    const s = storeIn(t.dir);
    writeFileSync(settingsPath(t.dir), '{ broken');
    expect(await s.readSettings()).toEqual({ authorized_projects: [] });
    writeFileSync(settingsPath(t.dir), JSON.stringify({ authorized_projects: ['/a'], theme: 'dark' }));
    const r = await s.authorizeProject('/b');
    expect(r.authorized_projects).toEqual(['/a', '/b']);
    await s.authorizeProject('/b');
    const raw = JSON.parse(readFileSync(settingsPath(t.dir), 'utf8')) as Record<string, unknown>;
    expect(raw).toEqual({ authorized_projects: ['/a', '/b'], theme: 'dark' });
    expect(statSync(settingsPath(t.dir)).mode & 0o777).toBe(0o600);
  });

  it('project grants are kept per project; concurrent grants through one store lose none', async () => {
    const dir = tempRoot();
    const s = storeIn(dir.dir);
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.authorizeProject('/p', [`edit_file:/x/${i}`])));
    await s.authorizeProject('/q', ['run_bash:dangerous']);
    const r = await s.readSettings();
    expect(r.authorized_projects).toEqual(['/p', '/q']);
    expect(r.project_grants?.['/p']).toHaveLength(20);
    expect(r.project_grants?.['/q']).toEqual(['run_bash:dangerous']);
    // a new store over the same root reads the same grants (they are persisted, not cached)
    expect((await storeIn(dir.dir).readSettings()).project_grants?.['/p']).toHaveLength(20);
    dir.cleanup();
  });

  it('shutdown flushes pending task memory and refuses later writes', async () => {
    const clock = new ManualClock();
    const s = storeIn(t.dir, { clock });
    await s.saveTaskMemory('T9', mem(3));
    await s.shutdown();
    // read back through a fresh store: the shut-down one could still answer from its pending map
    expect(await storeIn(t.dir).loadTaskMemory('T9')).toEqual(mem(3));
    await expect(s.writeArtifact('x')).rejects.toMatchObject({ code: 'SHUT_DOWN' });
  });
});
