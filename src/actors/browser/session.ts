// The Browser agent's one browser per delegation: started on the first browser tool call, ended with the run.
// Every action has one deadline; a cancelled action kills the browser (its CDP command cannot be recalled); a
// timeout keeps the browser only when it still answers; a crash is one error result and the next call starts
// a fresh browser, saying that the earlier pages are gone. file: loads are checked browser-wide (FilePolicy).
import type { Boundary } from '../tools/boundary.js';
import type { BrowserCallOptions, BrowserPort, BrowserShot } from '../tools/types.js';
import type { BrowserAvailability } from './discover.js';
import { BrowserError, isBrowserError } from './errors.js';
import { FilePolicy } from './file-policy.js';
import { describeExit, launchBrowser, type BrowserProcess } from './launch.js';
import { budgetOptions, Page, remainingMs, type Budget } from './page.js';
import { formatView } from './view.js';

export interface BrowserSessionOptions {
  availability: BrowserAvailability;
  /** The built environment (run_bash's: API keys and secret-named variables dropped). */
  env: NodeJS.ProcessEnv;
  /** The run's read boundary: file: URLs are judged like read_file's paths. */
  boundary: Boundary;
  /** The run's signal: its abort kills the browser at once (cancel, timeouts of the delegation). */
  runSignal: AbortSignal;
  launchTimeoutMs?: number;
  /** What a snapshot after an action may take on top of the action's own budget. */
  snapshotTimeoutMs?: number;
  /** Profile dirs (default: the OS temp dir). */
  tmpRoot?: string;
  /** A delegation continued in a new worker (recovery B): its first browser is fresh, and the result says so. */
  resumed?: boolean;
}

interface Live {
  proc: BrowserProcess;
  page: Page;
}

/** How long a probe may take after a timeout to decide whether the browser is hung. */
const PROBE_MS = 2000;
const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'file:']);

export class BrowserSession implements BrowserPort {
  private live: Live | null = null;
  private starting: Promise<Live> | null = null;
  /** Browsers being stopped; awaited before the next start and by close(). */
  private readonly retiring = new Set<Promise<void>>();
  private readonly files: FilePolicy;
  private notes: string[] = [];
  /** Why the previous browser ended, told once with the next result (its pages and cookies are gone). */
  private lost: string | null = null;
  /** New tabs the current page opened (window.open, target=_blank): the newest becomes the page. */
  private openedTabs: string[] = [];
  private closed = false;
  private readonly onRunAbort = (): void => {
    this.closed = true;
    this.retire(null, true);
  };

  constructor(private readonly o: BrowserSessionOptions) {
    this.files = new FilePolicy(o.boundary);
    if (o.resumed === true) this.lost = 'this delegation was continued in a new worker after its old one ended';
    if (o.runSignal.aborted) this.closed = true;
    else o.runSignal.addEventListener('abort', this.onRunAbort, { once: true });
  }

  /** The pid of the running browser (tests check its process group), or null. */
  get pid(): number | null {
    return this.live?.proc.pid ?? null;
  }

  approveFile(realPath: string): void {
    this.files.approve(realPath);
  }

  open(url: string, o: BrowserCallOptions): Promise<string> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.reject(new BrowserError('bad_url', `"${url}" is not a URL: write it in full, e.g. https://example.com or http://localhost:3000/`));
    }
    if (!ALLOWED_SCHEMES.has(parsed.protocol) && url !== 'about:blank') {
      return Promise.reject(new BrowserError('bad_url', `${parsed.protocol} URLs cannot be opened: use http:, https: or file:`));
    }
    return this.act(o, (page, b) => page.navigate(parsed.href, b));
  }

  snapshot(o: BrowserCallOptions): Promise<string> {
    return this.act(o, () => Promise.resolve());
  }

  click(ref: number, o: BrowserCallOptions): Promise<string> {
    return this.act(o, (page, b) => page.click(ref, b));
  }

  type(ref: number, text: string, opts: { submit: boolean; clear: boolean }, o: BrowserCallOptions): Promise<string> {
    return this.act(o, async (page, b) => {
      const chosen = await page.type(ref, text, opts, b);
      if (chosen !== null) this.notes.push(`selected "${chosen}" in [${ref}]`);
    });
  }

  press(key: string, o: BrowserCallOptions): Promise<string> {
    return this.act(o, (page, b) => page.press(key, b));
  }

  back(o: BrowserCallOptions): Promise<string> {
    return this.act(o, (page, b) => page.back(b));
  }

  screenshot(fullPage: boolean, o: BrowserCallOptions): Promise<BrowserShot> {
    return this.run(o, async (page, b) => {
      const png = await page.screenshot(fullPage, b);
      return { png, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
    });
  }

  /** End of the run: the browser is stopped and its profile removed; later calls fail with browser_closed. */
  async close(): Promise<void> {
    this.closed = true;
    this.o.runSignal.removeEventListener('abort', this.onRunAbort);
    // a start in flight finishes first (it sees `closed` and stops what it launched)
    await this.starting?.catch(() => undefined);
    this.retire(null, false);
    await Promise.all([...this.retiring]);
  }

  /** An action, then the page as the model reads it (what the action changed, with the new element numbers). */
  private act(o: BrowserCallOptions, fn: (page: Page, b: Budget) => Promise<void>): Promise<string> {
    return this.run(o, async (page, b) => {
      await fn(page, b);
      const current = await this.adoptNewTab(b);
      // the snapshot after an action has its own small budget: an action that used all of its time still shows the page
      const snap = await current.snapshot({ deadline: Date.now() + (this.o.snapshotTimeoutMs ?? 15_000), signal: b.signal });
      return formatView(snap, this.takeNotes());
    });
  }

  private async run<T>(o: BrowserCallOptions, fn: (page: Page, b: Budget) => Promise<T>): Promise<T> {
    if (this.closed) throw new BrowserError('browser_closed', 'the browser of this delegation has ended');
    if (!this.o.availability.ok) throw new BrowserError('browser_unavailable', `no browser can be started: ${this.o.availability.reason}`);
    const b: Budget = { deadline: Date.now() + o.timeoutMs, signal: o.signal };
    // a cancelled call leaves a CDP command in flight that nothing can recall: the browser goes with it
    const onAbort = (): void => this.retire('the previous browser call was cancelled', true);
    o.signal.addEventListener('abort', onAbort, { once: true });
    let live = this.live;
    try {
      // a browser that died or hung between two calls (killed from outside, out of memory) is replaced, and the result says so
      if (live !== null && !(await this.answers(live, o.signal))) live = null;
      const { page } = live ?? (await this.ready(b));
      return await fn(page, b);
    } catch (e) {
      throw await this.failure(e, o, live ?? this.live);
    } finally {
      o.signal.removeEventListener('abort', onAbort);
    }
  }

  /** One round trip to the browser process (about a millisecond on the pipe); a dead or hung one is retired. */
  private async answers(live: Live, signal: AbortSignal): Promise<boolean> {
    try {
      await live.proc.conn.send('Browser.getVersion', {}, { timeoutMs: PROBE_MS, signal });
      return true;
    } catch (e) {
      if (signal.aborted || (e as BrowserError).kind === 'cancelled') throw e;
      this.retire('the previous browser ended between two calls', true);
      return false;
    }
  }

  private ready(b: Budget): Promise<Live> {
    this.starting ??= this.start(b).finally(() => (this.starting = null));
    return this.starting;
  }

  private async start(b: Budget): Promise<Live> {
    await Promise.all([...this.retiring]);
    const executable = this.o.availability.ok ? this.o.availability.executable : '';
    const timeoutMs = Math.min(this.o.launchTimeoutMs ?? 30_000, remainingMs(b));
    const proc = await launchBrowser({ executable, env: this.o.env, timeoutMs, signal: b.signal, ...(this.o.tmpRoot ? { tmpRoot: this.o.tmpRoot } : {}) });
    try {
      const conn = proc.conn;
      const send = (method: string, params: Record<string, unknown> = {}): Promise<unknown> => conn.send(method, params, budgetOptions(b));
      conn.on('Fetch.requestPaused', (p) => {
        const v = this.files.decide(String((p.request as { url?: string } | undefined)?.url ?? ''));
        conn.notify(v.ok ? 'Fetch.continueRequest' : 'Fetch.failRequest', { requestId: p.requestId, ...(v.ok ? {} : { errorReason: 'AccessDenied' }) });
      });
      conn.on('Target.targetCreated', (p) => {
        const t = p.targetInfo as { type?: string; targetId?: string; openerId?: string } | undefined;
        if (t?.type === 'page' && t.openerId !== undefined && t.openerId === this.live?.page.targetId && t.targetId) this.openedTabs.push(t.targetId);
      });
      // browser-wide, so frames and pages opened later are covered too
      await send('Fetch.enable', { patterns: [{ urlPattern: 'file://*', requestStage: 'Request' }] });
      await send('Browser.setDownloadBehavior', { behavior: 'deny' });
      await send('Target.setDiscoverTargets', { discover: true });
      const targets = (await send('Target.getTargets')) as { targetInfos: { type: string; targetId: string }[] };
      const first = targets.targetInfos.find((t) => t.type === 'page');
      const targetId = first?.targetId ?? String(((await send('Target.createTarget', { url: 'about:blank' })) as { targetId: string }).targetId);
      const page = await Page.attach(conn, targetId, (t) => this.notes.push(t), b);
      if (this.closed) throw new BrowserError('browser_closed', 'the run ended while its browser was starting');
      this.live = { proc, page };
      if (this.lost !== null) this.notes.push(`this is a fresh browser: ${this.lost}; its pages, cookies and logins are gone`);
      this.lost = null;
      return this.live;
    } catch (e) {
      await proc.stop();
      throw e;
    }
  }

  private async adoptNewTab(b: Budget): Promise<Page> {
    const live = this.live;
    if (live === null) throw new BrowserError('browser_closed', 'the browser ended during the action');
    const targetId = this.openedTabs.pop();
    this.openedTabs = [];
    if (targetId === undefined) return live.page;
    const page = await Page.attach(live.proc.conn, targetId, (t) => this.notes.push(t), b);
    live.page.detach();
    live.page = page;
    await page.documentComplete(b);
    this.notes.push('the page opened a new tab: you are now in it (browser_back works within this tab)');
    return page;
  }

  /** Maps a failure to the one error the tool returns, and decides whether this browser can go on. */
  private async failure(e: unknown, o: BrowserCallOptions, live: Live | null): Promise<BrowserError> {
    if (o.signal.aborted) return new BrowserError('cancelled', 'the browser call was cancelled; the browser was stopped');
    const err = isBrowserError(e) ? e : new BrowserError('cdp_error', e instanceof Error ? e.message : String(e));
    if (live === null || live !== this.live) return err; // failed to start, or already retired
    if (live.proc.conn.closedReason !== null && !this.closed) {
      const exit = await live.proc.exitWithin(1000);
      const how = exit ? describeExit(exit) : 'its pipe closed';
      const tail = live.proc.stderrTail();
      this.retire(`the previous browser crashed (${how})`, false);
      return new BrowserError('browser_crashed', `the browser ended unexpectedly (${how}); the next browser call starts a fresh one, with none of the earlier pages${tail ? `\n${tail}` : ''}`);
    }
    if (err.kind === 'timeout') {
      if (await live.page.responsive(PROBE_MS, o.signal)) return new BrowserError('timeout', `${err.message}; the browser is still open on the page it was on`);
      this.retire('the previous browser stopped answering and was stopped', true);
      return new BrowserError('timeout', `${err.message}; the page did not answer any more, so the browser was stopped: the next browser call starts a fresh one`);
    }
    return err;
  }

  /** Drops the current browser (SIGKILL now when `kill`); stop() reaps it and removes its profile in the background set. */
  private retire(reason: string | null, kill: boolean): void {
    const live = this.live;
    this.live = null;
    this.openedTabs = [];
    if (live === null) return; // already retired: the first reason stands
    if (reason !== null) this.lost = reason;
    live.page.detach();
    if (kill) live.proc.killNow();
    const stopping = live.proc.stop().finally(() => this.retiring.delete(stopping));
    this.retiring.add(stopping);
  }

  private takeNotes(): string[] {
    const blocked = this.files.take().map((b) => `blocked a file: load: ${b}`);
    const out = [...this.notes, ...blocked];
    this.notes = [];
    return out;
  }
}
