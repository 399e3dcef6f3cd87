// The driver when things go wrong, against a real Chromium: a server that never answers, a hung renderer, a
// browser killed from outside, a cancelled call. Each call ends with exactly one outcome, within its budget, and
// no browser process is left behind (checked by pid).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sweepStaleProfiles } from '../../src/actors/browser/launch.js';
import { until } from '../runtime/helpers.js';
import { noLiveMember, GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';
import { browserSuite, call, chromiumFound } from './helpers.js';

const t = browserSuite();

/** How often the site was asked for /hang so far. */
const hangs = (): number => t.site.seen().filter((p) => p === '/hang').length;

/** Resolves to what the promise settled with, and how long it took. */
async function settle<T>(p: Promise<T>): Promise<{ ok: boolean; value?: T; error?: { kind?: string; message?: string }; ms: number }> {
  const t0 = Date.now();
  try {
    return { ok: true, value: await p, ms: Date.now() - t0 };
  } catch (e) {
    return { ok: false, error: e as { kind?: string; message?: string }, ms: Date.now() - t0 };
  }
}

describe.skipIf(!chromiumFound)('browser driver faults (real Chromium)', () => {
  it('a server that never answers: open is a timeout error within its budget, and the same browser goes on', async () => {
    const { s } = t.open();
    await s.open(t.site.url('/about'), call());
    const pid = s.pid;
    const r = await settle(s.open(t.site.url('/hang'), call(1500)));
    expect(r.ok).toBe(false);
    expect(r.error?.kind).toBe('timeout');
    expect(r.error?.message).toContain('still open');
    expect(r.ms).toBeLessThan(1500 + 2000 + 8000); // budget + the liveness probe + a loaded machine's slack (the page never ends)
    expect(await s.open(t.site.url('/'), call())).toContain('Fixture shop');
    expect(s.pid).toBe(pid);
  });

  it('a page that never finishes loading: open waits for the load until its budget, then shows what arrived and says so', async () => {
    const { s } = t.open();
    await s.open(t.site.url('/about'), call()); // the browser's launch is not part of the budget under test
    const r = await settle(s.open(t.site.url('/partial'), call(1500)));
    expect(r.ok).toBe(true);
    expect(r.value).toContain('# Partial page');
    expect(r.value).toContain('the page had not finished loading when the time was up (loading was stopped)');
    expect(r.ms).toBeGreaterThanOrEqual(1400); // it waited for the load, not just for the first bytes
    expect(await s.open(t.site.url('/about'), call())).toContain('Founded in 1999.');
  });

  it('a hung renderer: one timeout error, the browser is stopped (no process of its group left), the next call starts a fresh one and says so', async () => {
    const { s } = t.open({ snapshotTimeoutMs: 1500 });
    await s.open(t.site.url('/about'), call());
    const first = s.pid ?? -1;
    const r = await settle(s.open(t.site.url('/loop'), call(1500)));
    expect(r.ok).toBe(false);
    expect(r.error?.kind).toBe('timeout');
    expect(r.error?.message).toContain('the browser was stopped');
    expect(await noLiveMember(first, GONE_DEADLINE_MS)).toEqual([]);
    const next = await s.open(t.site.url('/about'), call());
    expect(next).toContain('this is a fresh browser');
    expect(next).toContain('Founded in 1999.');
    expect(s.pid).not.toBe(first);
  });

  it('a browser killed during a call: that call gets one browser_crashed error; the next call works in a fresh browser', async () => {
    const { s } = t.open();
    await s.open(t.site.url('/about'), call());
    const pid = s.pid ?? -1;
    const asked = hangs();
    const pending = settle(s.open(t.site.url('/hang'), call(20_000)));
    await until(() => hangs() > asked, 20_000, 'the browser asked for /hang');
    process.kill(-pid, 'SIGKILL');
    const r = await pending;
    expect(r.ok).toBe(false);
    expect(r.error?.kind).toBe('browser_crashed');
    expect(r.error?.message).toMatch(/signal SIGKILL|pipe closed/);
    expect(r.ms).toBeLessThan(20_000); // before the call's own 20 s timeout: the crash ended it
    const next = await s.open(t.site.url('/'), call());
    expect(next).toContain('this is a fresh browser');
    expect(next).toContain('Fixture shop');
  });

  it('a browser that died between two calls is replaced by the next call, which says so', async () => {
    const { s } = t.open();
    await s.open(t.site.url('/about'), call());
    const pid = s.pid ?? -1;
    process.kill(-pid, 'SIGKILL');
    expect(await noLiveMember(pid, GONE_DEADLINE_MS)).toEqual([]);
    const next = await s.open(t.site.url('/about'), call());
    expect(next).toContain('this is a fresh browser');
    expect(s.pid).not.toBe(pid);
  });

  it('a cancelled call ends at once with cancelled, and its browser is killed (checked by pid)', async () => {
    const { s } = t.open();
    await s.open(t.site.url('/about'), call());
    const pid = s.pid ?? -1;
    const ctl = new AbortController();
    const asked = hangs();
    const pending = settle(s.open(t.site.url('/hang'), call(20_000, ctl.signal)));
    await until(() => hangs() > asked, 20_000, 'the browser asked for /hang');
    ctl.abort();
    const r = await pending;
    expect(r.error?.kind).toBe('cancelled');
    expect(r.ms).toBeLessThan(20_000); // before the call's own 20 s timeout: the cancel ended it
    expect(await noLiveMember(pid, GONE_DEADLINE_MS)).toEqual([]);
    expect(await s.open(t.site.url('/about'), call())).toContain('the previous browser call was cancelled');
  });

  it('an executable that is no browser: the first call is one browser_launch_failed error, bounded by the launch timeout', async () => {
    const { s } = t.open({ availability: { ok: true, executable: '/bin/true' }, launchTimeoutMs: 3000 });
    const r = await settle(s.open(t.site.url('/'), call()));
    expect(r.error?.kind).toBe('browser_launch_failed');
    expect(r.error?.message).toContain('/bin/true');
    expect(r.ms).toBeLessThan(3000 + 10_000); // the launch timeout, plus a loaded machine's slack
    const missing = t.open({ availability: { ok: false, reason: 'no Chromium or Chrome was found' } }).s;
    await expect(missing.snapshot(call())).rejects.toMatchObject({ kind: 'browser_unavailable', message: expect.stringContaining('no Chromium') });
  });
});

describe('profile dirs left by a worker that could not clean up', () => {
  it('are removed by the next launch when their browser is gone (or they never got one and are old); live ones stay', () => {
    const root = join(t.w.dir, 'sweep');
    const dirs = { dead: join(root, 'yagent-browser-dead'), live: join(root, 'yagent-browser-live'), fresh: join(root, 'yagent-browser-fresh'), old: join(root, 'yagent-browser-old'), other: join(root, 'unrelated') };
    for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
    const gone = spawnSync('true').pid; // exited and reaped: nobody has this pid now
    writeFileSync(join(dirs.dead, '.yagent-owner'), String(gone));
    writeFileSync(join(dirs.live, '.yagent-owner'), String(process.pid));
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(dirs.old, hourAgo, hourAgo);
    expect(sweepStaleProfiles(root).sort()).toEqual([dirs.dead, dirs.old].sort());
    expect([dirs.live, dirs.fresh, dirs.other].every((d) => existsSync(d))).toBe(true);
  });
});
