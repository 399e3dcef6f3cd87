// One page (tab) of the browser: navigation and its load state, the snapshot with numbered elements, and the
// actions on those numbers as trusted input events (mouse, keyboard, insertText). State comes from CDP events.
import type { CdpConnection, CdpParams } from './cdp.js';
import { BrowserError } from './errors.js';
import { parseKey } from './keys.js';
import { snapshotScript } from './page-script.js';

/** One deadline for one tool call: every command of the action gets what is left of it. */
export interface Budget {
  deadline: number;
  signal: AbortSignal;
}

export interface Snapshot {
  title: string;
  url: string;
  text: string;
  refs: number;
  cut: boolean;
}

export const VIEWPORT = { width: 1280, height: 800 } as const;

/** Characters of page text the snapshot collects (the tool result also carries the header and notes). */
export const SNAPSHOT_MAX_CHARS = 30_000;

interface Helped {
  error?: string;
  why?: string;
  x?: number;
  y?: number;
  ok?: boolean;
  empty?: boolean;
  chosen?: string;
}

export class Page {
  private loading = false;
  private readonly stopped = new Set<() => void>();
  private readonly navigated = new Set<() => void>();
  /** Main-frame documents seen: refs of an older document are stale. */
  private documents = 0;
  private snap: { contextId: number; document: number } | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly conn: CdpConnection,
    readonly targetId: string,
    readonly sessionId: string,
    private readonly mainFrame: string,
    /** Things the page did by itself that the next result should mention (dialogs). */
    private readonly note: (text: string) => void,
  ) {
    const main = (p: CdpParams): boolean => p.frameId === this.mainFrame || (p.frame as { id?: string; parentId?: string } | undefined)?.id === this.mainFrame;
    const mine = (fn: (p: CdpParams) => void) => (p: CdpParams, s: string | undefined) => s === this.sessionId && fn(p);
    this.offs.push(
      conn.on('Page.frameStartedLoading', mine((p) => main(p) && (this.loading = true))),
      conn.on('Page.frameStoppedLoading', mine((p) => main(p) && this.fire(this.stopped, () => (this.loading = false)))),
      conn.on('Page.frameNavigated', mine((p) => main(p) && this.fire(this.navigated, () => this.documents++))),
      conn.on('Page.navigatedWithinDocument', mine((p) => main(p) && this.fire(this.navigated, () => undefined))),
      conn.on('Page.javascriptDialogOpening', mine((p) => this.dialog(p))),
    );
  }

  /** Attaches to a page target and enables what the page needs. */
  static async attach(conn: CdpConnection, targetId: string, note: (t: string) => void, b: Budget): Promise<Page> {
    const r = await conn.send('Target.attachToTarget', { targetId, flatten: true }, budgetOptions(b));
    const sessionId = String(r.sessionId);
    await conn.send('Page.enable', {}, { ...budgetOptions(b), sessionId });
    // a fixed viewport: screenshots and "what is visible" do not depend on the window decorations of a build
    await conn.send('Emulation.setDeviceMetricsOverride', { ...VIEWPORT, deviceScaleFactor: 1, mobile: false }, { ...budgetOptions(b), sessionId });
    const tree = await conn.send('Page.getFrameTree', {}, { ...budgetOptions(b), sessionId });
    const frame = (tree.frameTree as { frame: { id: string } }).frame.id;
    return new Page(conn, targetId, sessionId, frame, note);
  }

  detach(): void {
    for (const off of this.offs.splice(0)) off();
  }

  async navigate(url: string, b: Budget): Promise<void> {
    const r = await this.cmd('Page.navigate', { url }, b).catch((e: unknown) => {
      // a server that never answers: stop the load so the page stays usable, and say so
      if ((e as BrowserError).kind === 'timeout') this.conn.notify('Page.stopLoading', {}, this.sessionId);
      throw e;
    });
    if (typeof r.errorText === 'string' && r.errorText !== '') throw new BrowserError('navigation_failed', `${url} could not be opened: ${r.errorText}`);
    if (r.loaderId !== undefined) await this.loaded(b);
  }

  /** Back one entry of this tab's history; the page before it must exist. */
  async back(b: Budget): Promise<void> {
    const h = await this.cmd('Page.getNavigationHistory', {}, b);
    const index = Number(h.currentIndex);
    const entries = h.entries as { id: number; url: string }[];
    if (!(index > 0)) throw new BrowserError('no_history', 'there is no earlier page in this tab');
    const moved = this.next(this.navigated, b);
    await this.cmd('Page.navigateToHistoryEntry', { entryId: entries[index - 1].id }, b);
    await moved;
    await this.loaded(b);
  }

  async snapshot(b: Budget): Promise<Snapshot> {
    const world = await this.cmd('Page.createIsolatedWorld', { frameId: this.mainFrame, worldName: 'yagent', grantUniveralAccess: false }, b);
    const contextId = Number(world.executionContextId);
    const value = await this.evaluate(snapshotScript(SNAPSHOT_MAX_CHARS), contextId, b);
    this.snap = { contextId, document: this.documents };
    return value as Snapshot;
  }

  async click(ref: number, b: Budget): Promise<void> {
    const p = await this.helper('point', [ref], b);
    const at = { x: p.x ?? 0, y: p.y ?? 0 };
    await this.cmd('Input.dispatchMouseEvent', { type: 'mouseMoved', ...at }, b);
    await this.cmd('Input.dispatchMouseEvent', { type: 'mousePressed', ...at, button: 'left', buttons: 1, clickCount: 1 }, b);
    await this.cmd('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, button: 'left', buttons: 0, clickCount: 1 }, b);
    await this.settle(b);
  }

  /** Text into a field (replacing its value unless `clear` is false), or the option of a select; Enter after when `submit`. */
  async type(ref: number, text: string, o: { submit: boolean; clear: boolean }, b: Budget): Promise<string | null> {
    const chosen = await this.helper('choose', [ref, text], b).catch((e: unknown) => {
      if ((e as BrowserError).kind === 'not_actionable' && /not a select/.test((e as Error).message)) return null;
      throw e;
    });
    if (chosen === null) {
      const f = await this.helper('focus', [ref, o.clear], b);
      if (text !== '') await this.cmd('Input.insertText', { text }, b);
      else if (o.clear && f.empty === false) await this.key('Backspace', b);
    }
    if (o.submit) await this.key('Enter', b);
    await this.settle(b);
    return chosen?.chosen ?? null;
  }

  async press(spec: string, b: Budget): Promise<void> {
    await this.key(spec, b);
    await this.settle(b);
  }

  async screenshot(fullPage: boolean, b: Budget): Promise<Buffer> {
    const params: CdpParams = { format: 'png' };
    if (fullPage) {
      const m = await this.cmd('Page.getLayoutMetrics', {}, b);
      const size = (m.cssContentSize ?? m.contentSize) as { width: number; height: number };
      params.clip = { x: 0, y: 0, width: Math.min(Math.ceil(size.width), 4000), height: Math.min(Math.ceil(size.height), 16_000), scale: 1 };
      params.captureBeyondViewport = true;
    }
    const r = await this.cmd('Page.captureScreenshot', params, b);
    return Buffer.from(String(r.data), 'base64');
  }

  /** Until the document finished loading (a tab we attached to late: its load events came before we listened). */
  async documentComplete(b: Budget): Promise<void> {
    const expression = `new Promise((r) => (document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true), { once: true })))`;
    try {
      await this.cmd('Runtime.evaluate', { expression, awaitPromise: true }, b);
    } catch (e) {
      if ((e as BrowserError).kind !== 'timeout' && (e as BrowserError).kind !== 'cdp_error') throw e;
    }
  }

  /** A liveness probe of the renderer (after a timeout: is the page hung, or was it only slow?). */
  async responsive(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.cmd('Runtime.evaluate', { expression: '1', returnByValue: true }, { deadline: Date.now() + ms, signal });
      return true;
    } catch {
      return false;
    }
  }

  private async key(spec: string, b: Budget): Promise<void> {
    const k = parseKey(spec);
    const base = { key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode, modifiers: k.modifiers };
    await this.cmd('Input.dispatchKeyEvent', { type: k.text !== undefined ? 'keyDown' : 'rawKeyDown', ...base, ...(k.text !== undefined ? { text: k.text, unmodifiedText: k.text } : {}) }, b);
    await this.cmd('Input.dispatchKeyEvent', { type: 'keyUp', ...base }, b);
  }

  /** After an action: one turn of the page's event loop lets a handler start its navigation; then wait for the load. */
  private async settle(b: Budget): Promise<void> {
    const before = this.documents;
    try {
      await this.cmd('Runtime.evaluate', { expression: SETTLE, awaitPromise: true }, b);
    } catch (e) {
      // the document went away under the round trip: that is the navigation the action started
      if ((e as BrowserError).kind !== 'cdp_error' || (before === this.documents && !this.loading)) throw e;
    }
    await this.loaded(b);
  }

  /** Until the main frame stopped loading; a load that outlives the budget is stopped (the page is shown as it is). */
  private async loaded(b: Budget): Promise<void> {
    if (!this.loading) return;
    try {
      await this.next(this.stopped, b);
    } catch (e) {
      if ((e as BrowserError).kind !== 'timeout') throw e;
      this.conn.notify('Page.stopLoading', {}, this.sessionId);
      this.loading = false;
      this.note('the page had not finished loading when the time was up (loading was stopped)');
    }
  }

  private async helper(name: string, args: unknown[], b: Budget): Promise<Helped> {
    if (this.snap === null) throw new BrowserError('stale_ref', 'no element numbers yet: call browser_snapshot first');
    if (this.snap.document !== this.documents) throw stale();
    const expr = `globalThis.__yagent.helpers.${name}(${args.map((a) => JSON.stringify(a)).join(', ')})`;
    const r = (await this.evaluate(expr, this.snap.contextId, b).catch((e: unknown) => {
      throw (e as BrowserError).kind === 'cdp_error' && /context/i.test((e as Error).message) ? stale() : e;
    })) as Helped;
    if (r.error === undefined) return r;
    const n = String(args[0]);
    if (r.error === 'no_such_ref') throw new BrowserError('no_such_ref', `there is no element [${n}] in the last snapshot`);
    if (r.error === 'stale_ref') throw new BrowserError('stale_ref', `element [${n}] is no longer on the page: call browser_snapshot for fresh numbers`);
    throw new BrowserError('not_actionable', `element [${n}] cannot be used: ${r.why ?? r.error}`);
  }

  private async evaluate(expression: string, contextId: number, b: Budget): Promise<unknown> {
    const r = await this.cmd('Runtime.evaluate', { expression, contextId, returnByValue: true }, b);
    const ex = r.exceptionDetails as { exception?: { description?: string }; text?: string } | undefined;
    if (ex) throw new BrowserError('cdp_error', `page script failed: ${ex.exception?.description ?? ex.text ?? 'error'}`);
    return (r.result as { value?: unknown }).value;
  }

  private cmd(method: string, params: CdpParams, b: Budget): Promise<CdpParams> {
    return this.conn.send(method, params, { ...budgetOptions(b), sessionId: this.sessionId });
  }

  /** The next firing of one of this page's event sets, within the budget. */
  private next(set: Set<() => void>, b: Budget): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const end = (): void => {
        set.delete(fire);
        clearTimeout(timer);
        b.signal.removeEventListener('abort', onAbort);
      };
      const fire = (): void => (end(), resolve());
      const onAbort = (): void => (end(), reject(new BrowserError('cancelled', 'the action was cancelled')));
      const timer = setTimeout(() => (end(), reject(new BrowserError('timeout', 'the page did not finish in time'))), remainingMs(b));
      set.add(fire);
      if (b.signal.aborted) onAbort();
      else b.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private fire(set: Set<() => void>, update: () => void): void {
    update();
    for (const fn of [...set]) fn();
  }

  /** alert/beforeunload are accepted, confirm/prompt dismissed (never an unseen "yes"); the next result says so. */
  private dialog(p: CdpParams): void {
    const type = String(p.type);
    const accept = type === 'alert' || type === 'beforeunload';
    this.conn.notify('Page.handleJavaScriptDialog', { accept }, this.sessionId);
    this.note(`the page showed a ${type} dialog "${String(p.message).slice(0, 200)}" (${accept ? 'accepted' : 'dismissed'})`);
  }
}

/** A frame and a task of the page's own loop: what a click or key handler starts is under way after it. */
const SETTLE = `new Promise((r) => { const t = () => setTimeout(r, 0); if (document.visibilityState === 'visible') requestAnimationFrame(t); else t(); })`;

function stale(): BrowserError {
  return new BrowserError('stale_ref', 'the page changed (it navigated) since the last snapshot: call browser_snapshot for fresh numbers');
}

/** What is left of the budget, never below 1 ms (a spent budget times out at once). */
export function remainingMs(b: Budget): number {
  return Math.max(1, b.deadline - Date.now());
}

/** Send options for one CDP command of an action: the rest of its budget, and its signal. */
export function budgetOptions(b: Budget): { timeoutMs: number; signal: AbortSignal } {
  return { timeoutMs: remainingMs(b), signal: b.signal };
}
