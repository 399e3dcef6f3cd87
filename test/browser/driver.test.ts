// The browser driver against a real Chromium and a local node:http site: what the model reads (text with numbered
// elements) and what its actions do (click, type and submit, back, new tabs, dialogs). Only the model is faked elsewhere.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { until } from '../runtime/helpers.js';
import { groupMembers, noLiveMember, GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';
import { browserSuite, call, chromiumFound, refOf } from './helpers.js';

const t = browserSuite();

describe.skipIf(!chromiumFound)('browser driver (real Chromium)', () => {
  it('open returns the page as text: title, URL, and numbered links, buttons and fields; hidden ones are left out', async () => {
    const { s } = t.open();
    const view = await s.open(t.site.url('/'), call());
    expect(view).toContain(`URL: ${t.site.url('/')}`);
    expect(view).toContain('Title: Fixture shop');
    expect(view).toContain('# Fixture shop');
    expect(view).toContain('Opening hours: nine to five.');
    expect(view).toMatch(/\[\d+\] link "About us" -> http:\/\/127\.0\.0\.1:\d+\/about/);
    expect(view).toMatch(/\[\d+\] button "Reveal"/);
    expect(view).toMatch(/\[\d+\] input "Query"/);
    expect(view).toMatch(/\[\d+\] button "Search"/);
    expect(view).not.toContain('Invisible');
    // the numbers are 1..n in page order
    expect([...view.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]))).toEqual([1, 2, 3, 4]);
  });

  it('a click on a button runs its handler and the returned view shows what changed', async () => {
    const { s } = t.open();
    const before = await s.open(t.site.url('/'), call());
    expect(before).not.toContain('tangerine');
    const after = await s.click(refOf(before, /button "Reveal"/), call());
    expect(after).toContain('The secret word is tangerine');
  });

  it('a click on a link navigates; back returns to the page before with fresh numbers', async () => {
    const { s } = t.open();
    const home = await s.open(t.site.url('/'), call());
    const about = await s.click(refOf(home, /link "About us"/), call());
    expect(about).toContain(`URL: ${t.site.url('/about')}`);
    expect(about).toContain('Founded in 1999.');
    const back = await s.back(call());
    expect(back).toContain(`URL: ${t.site.url('/')}`);
    expect(back).toContain('Opening hours');
    // the numbers of the new view work
    expect(await s.click(refOf(back, /button "Reveal"/), call())).toContain('tangerine');
  });

  it('type into a field and submit (Enter) loads the result page; type + browser_press Enter does the same', async () => {
    const { s } = t.open();
    const home = await s.open(t.site.url('/'), call());
    const results = await s.type(refOf(home, /input "Query"/), 'red shoes', { submit: true, clear: true }, call());
    expect(results).toContain(`URL: ${t.site.url('/search?q=red+shoes')}`);
    expect(results).toContain('# Results for red shoes');
    const again = await s.back(call());
    const typed = await s.type(refOf(again, /input "Query"/), 'blue', { submit: false, clear: true }, call());
    expect(typed).toMatch(/input "Query" value="blue"/);
    const more = await s.type(refOf(typed, /input "Query"/), ' jeans', { submit: false, clear: false }, call());
    expect(more).toMatch(/input "Query" value="blue jeans"/);
    expect(await s.press('Enter', call())).toContain('# Results for blue jeans');
  });

  it('numbers are checked: an unknown one, one whose element left the page, one of a document that is gone', async () => {
    const { s } = t.open();
    const changing = await s.open(t.site.url('/changing'), call());
    await expect(s.click(99, call())).rejects.toMatchObject({ kind: 'no_such_ref', message: expect.stringContaining('[99]') });
    t.site.release('remove');
    await until(() => t.site.seen().includes('/done/removed'), 20_000, 'the page removed its button');
    await expect(s.click(refOf(changing, /button "Soon gone"/), call())).rejects.toMatchObject({ kind: 'stale_ref', message: expect.stringContaining('browser_snapshot') });
    const moving = await s.open(t.site.url('/moving'), call());
    t.site.release('move');
    await until(() => t.site.seen().includes('/done/arrived'), 20_000, 'the page navigated by itself');
    await expect(s.click(refOf(moving, /button "Stay"/), call())).rejects.toMatchObject({ kind: 'stale_ref' });
    // a fresh snapshot gives numbers that work again
    expect(await s.snapshot(call())).toContain('Here now.');
  });

  it('keys: an unknown name is refused with the list; back with no earlier page is an error', async () => {
    const { s } = t.open();
    await s.open(t.site.url('/about'), call());
    await expect(s.press('NoSuchKey', call())).rejects.toMatchObject({ kind: 'bad_key', message: expect.stringContaining('Enter') });
    await s.back(call()); // to the first page: about:blank
    await expect(s.back(call())).rejects.toMatchObject({ kind: 'no_history' });
  });

  it('a link with target=_blank opens a new tab, which becomes the page (and says so)', async () => {
    const { s } = t.open();
    const opener = await s.open(t.site.url('/tab'), call());
    const view = await s.click(refOf(opener, /link "About in a new tab"/), call());
    expect(view).toContain('opened a new tab');
    expect(view).toContain('Founded in 1999.');
  });

  it('downloads are refused: a click on an attachment leaves the page where it was and writes no file anywhere', async () => {
    const { s } = t.open();
    const page = await s.open(t.site.url('/download'), call());
    const view = await s.click(refOf(page, /link "Get the report"/), call());
    expect(view).toContain(`URL: ${t.site.url('/download')}`);
    await until(() => t.site.seen().includes('/report.bin'), 20_000, 'the browser asked for the attachment');
    expect(filesUnder(t.w.dir).filter((f) => /report\.bin/.test(f))).toEqual([]);
  });

  it('an alert is accepted and reported in the next view; the page goes on', async () => {
    const { s } = t.open();
    const page = await s.open(t.site.url('/dialog'), call());
    const view = await s.click(refOf(page, /button "Alert"/), call());
    expect(view).toContain('alert dialog "hello there" (accepted)');
    expect(view).toContain('after alert');
  });

  it('other schemes and incomplete URLs are refused before anything starts', async () => {
    const { s } = t.open();
    await expect(s.open('javascript:alert(1)', call())).rejects.toMatchObject({ kind: 'bad_url' });
    await expect(s.open('localhost:3000', call())).rejects.toMatchObject({ kind: 'bad_url' });
    await expect(s.open('example.com', call())).rejects.toMatchObject({ kind: 'bad_url', message: expect.stringContaining('write it in full') });
    expect(s.pid).toBeNull(); // nothing was launched for them
  });

  it('one browser per session, started by the first call, on a pipe: no TCP port is listened on, none is named', async () => {
    const { s } = t.open();
    expect(s.pid).toBeNull();
    await s.open(t.site.url('/about'), call());
    const pid = s.pid ?? -1;
    expect(pid).toBeGreaterThan(1);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain('--remote-debugging-pipe');
    expect(cmdline.some((a) => a.startsWith('--remote-debugging-port'))).toBe(false);
    expect(listeningSocketsOf(pid)).toEqual([]);
    await s.open(t.site.url('/'), call());
    expect(s.pid).toBe(pid); // the same browser serves the next call
  });

  it('close() ends the whole process group (checked by pid) and removes the temp profile', async () => {
    const { s } = t.open();
    await s.open(t.site.url('/'), call());
    const pid = s.pid ?? -1;
    const profile = readdirSync(t.w.dir).find((n) => n.startsWith('yagent-browser-'));
    expect(profile).toBeDefined();
    expect(groupMembers(pid).length).toBeGreaterThan(1); // the browser and its helpers share the group
    await s.close();
    expect(await noLiveMember(pid, GONE_DEADLINE_MS)).toEqual([]);
    expect(existsSync(`${t.w.dir}/${profile ?? ''}`)).toBe(false);
    await expect(s.snapshot(call())).rejects.toMatchObject({ kind: 'browser_closed' });
  });

  it('the end of the run (its signal) kills the browser at once', async () => {
    const { s, run } = t.open();
    await s.open(t.site.url('/'), call());
    const pid = s.pid ?? -1;
    run.abort();
    expect(await noLiveMember(pid, GONE_DEADLINE_MS)).toEqual([]);
    await expect(s.snapshot(call())).rejects.toMatchObject({ kind: 'browser_closed' });
  });
});

/** Every file path below `dir` (a download would land somewhere in the profile). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => `${e.parentPath}/${e.name}`);
}

/** TCP sockets in LISTEN state held by any process of `pgid`'s group (by socket inode). */
function listeningSocketsOf(pgid: number): string[] {
  const listening = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = row.trim().split(/\s+/);
      if (f[3] === '0A') listening.add(f[9] ?? '');
    }
  }
  const held: string[] = [];
  for (const m of groupMembers(pgid)) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${m.pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${m.pid}/fd/${fd}`))?.[1];
        if (inode !== undefined && listening.has(inode)) held.push(`${m.pid}:${inode}`);
      } catch {
        // the fd closed while we listed
      }
    }
  }
  return held;
}
