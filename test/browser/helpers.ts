// Browser test fixtures: the real Chromium (found like production finds it), a local node:http site, sessions
// that clean up after themselves. Only machines without Chromium skip these tests; CI (CI=true) must have it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { discoverBrowser } from '../../src/actors/browser/discover.js';
import { BrowserSession, type BrowserSessionOptions } from '../../src/actors/browser/session.js';
import { Boundary, boundaryPolicy } from '../../src/actors/tools/boundary.js';

const found = discoverBrowser({ enabled: true, executable: '' }, process.env);
export const CHROMIUM: string | null = found.ok ? found.executable : null;
export const chromiumFound = CHROMIUM !== null;
if (!chromiumFound && process.env.CI === 'true') {
  // CI installs chromium (.ci/run): a missing one must fail the run, never skip the browser tests silently
  throw new Error(`CI=true but no Chromium was found: ${found.ok ? '' : found.reason}`);
}

/** The pages the tests drive: text, a link, a button that changes the page, a form, a slow and a hung page. */
const PAGES: Record<string, string> = {
  '/': `<!doctype html><title>Fixture shop</title>
<h1>Fixture shop</h1>
<p>Opening hours: <b>nine to five</b>.</p>
<a href="/about">About us</a>
<button id="reveal" onclick="document.getElementById('out').textContent = 'The secret word is tangerine'">Reveal</button>
<p id="out"></p>
<form action="/search" method="get"><label>Query <input name="q"></label><button type="submit">Search</button></form>
<div style="display:none"><button>Invisible</button></div>`,
  '/about': `<!doctype html><title>About</title><h1>About the shop</h1><p>Founded in 1999.</p><a href="/">Home</a>`,
  '/loop': `<!doctype html><title>Busy</title><p>spinning</p><script>setTimeout(() => { for (;;) {} }, 0)</script>`,
  '/download': `<!doctype html><title>Downloads</title><a href="/report.bin">Get the report</a>`,
  '/tab': `<!doctype html><title>Opener</title><a href="/about" target="_blank">About in a new tab</a>`,
  '/dialog': `<!doctype html><title>Dialog</title><button onclick="alert('hello there'); document.body.append('after alert')">Alert</button>`,
  // changes itself once the test releases it, then tells the server (so the test knows it happened)
  '/changing': `<!doctype html><title>Changing</title><button id="b">Soon gone</button>
<script>fetch('/release/remove').then(() => { document.getElementById('b').remove(); return fetch('/done/removed'); })</script>`,
  '/moving': `<!doctype html><title>Moving</title><button>Stay</button><script>fetch('/release/move').then(() => { location.href = '/arrived'; })</script>`,
  '/arrived': `<!doctype html><title>Arrived</title><p>Here now.</p><script>fetch('/done/arrived')</script>`,
};

export interface Site {
  url(path: string): string;
  /** Answers the held `/release/<name>` request (the page then acts). */
  release(name: string): void;
  /** Paths requested so far. */
  seen(): string[];
  close(): Promise<void>;
}

/** A local site on 127.0.0.1 (an OS-chosen port); `/hang` accepts and never answers, `/partial` never finishes its
 *  body, `/search?q=` echoes. */
export async function startSite(): Promise<Site> {
  const sockets = new Set<Socket>();
  const held = new Map<string, ServerResponse>();
  const released = new Set<string>();
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push(u.pathname);
    if (u.pathname === '/hang') return; // the response never comes
    if (u.pathname === '/partial') return void res.writeHead(200, { 'content-type': 'text/html' }).write('<!doctype html><title>Partial</title><h1>Partial page</h1>'); // never ends
    if (u.pathname.startsWith('/release/')) {
      const name = u.pathname.slice('/release/'.length);
      if (released.has(name)) res.end('go');
      else held.set(name, res);
      return;
    }
    if (u.pathname.startsWith('/done/')) return void res.end('ok');
    if (u.pathname === '/report.bin') return void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.bin"' }).end('DOWNLOADED-BYTES');
    if (u.pathname === '/search') {
      const q = (u.searchParams.get('q') ?? '').replace(/[<>&]/g, '');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Results</title><h1>Results for ${q}</h1>`);
      return;
    }
    const body = PAGES[u.pathname];
    if (body === undefined) res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    else res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    release: (name) => {
      released.add(name);
      held.get(name)?.end('go');
    },
    seen: () => [...seen],
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

export interface World {
  dir: string;
  workspace: string;
  home: string;
  dataRoot: string;
  boundary: Boundary;
  cleanup(): void;
}

/** A temp dir with a workspace, a HOME and a data root of its own; the boundary is built from those, not process.env. */
export function world(): World {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'yagent-browser-test-')));
  const workspace = join(dir, 'ws');
  const home = join(dir, 'home');
  const dataRoot = join(home, '.yagent');
  for (const d of [workspace, home, dataRoot]) mkdirSync(d, { recursive: true });
  const boundary = new Boundary(workspace, boundaryPolicy({ HOME: home, YAGENT_HOME: dataRoot }, [], home));
  return { dir, workspace, home, dataRoot, boundary, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface BrowserSuite {
  readonly site: Site;
  readonly w: World;
  /** A session in the suite's world; every one is closed after each test. */
  open(over?: Partial<BrowserSessionOptions>): { s: BrowserSession; run: AbortController };
}

/** One test file's site and world, started before its tests; every browser a test started is stopped after it. */
export function browserSuite(): BrowserSuite {
  let site: Site | undefined;
  let w: World | undefined;
  const live: BrowserSession[] = [];
  beforeAll(async () => {
    site = await startSite();
    w = world();
  });
  afterEach(async () => {
    await Promise.all(live.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await site?.close();
    w?.cleanup();
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the browser suite starts in beforeAll: use it inside a test or a later hook');
    return v;
  };
  return {
    get site() {
      return started(site);
    },
    get w() {
      return started(w);
    },
    open(over = {}) {
      const run = new AbortController();
      const s = new BrowserSession({
        availability: CHROMIUM ? { ok: true, executable: CHROMIUM } : { ok: false, reason: 'no chromium' },
        env: { PATH: process.env.PATH, TMPDIR: tmpdir() },
        boundary: started(w).boundary,
        runSignal: run.signal,
        tmpRoot: started(w).dir,
        ...over,
      });
      live.push(s);
      return { s, run };
    },
  };
}

/** Live browser processes that are direct children of this process (in-process runs start them here). */
export function childBrowsers(): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === process.pid && state !== 'Z' && /chrom/i.test(comm)) out.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** One call's options: a fresh signal and a deadline. */
export function call(timeoutMs = 20_000, signal: AbortSignal = new AbortController().signal): { signal: AbortSignal; timeoutMs: number } {
  return { signal, timeoutMs };
}

/** The element number of the first line of a page view matching `re` (e.g. /button "Reveal"/). */
export function refOf(view: string, re: RegExp): number {
  for (const m of view.matchAll(/\[(\d+)\] ([^[]*)/g)) if (re.test(m[2] ?? '')) return Number(m[1]);
  throw new Error(`no element matching ${re} in:\n${view}`);
}
