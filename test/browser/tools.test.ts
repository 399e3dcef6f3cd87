// The browser_* tools through the production adapter (parse → guard → authorization → execute) on a real
// Chromium: screenshots become PNG artifacts in a real store, and file: URLs meet read_file's boundary —
// inside the workspace free, outside asked, the data root and secret stores denied even with -y; a workspace
// page cannot pull an outside file in behind the guard's back.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type AdapterDeps, type ToolResult } from '../../src/actors/tools/adapter.js';
import type { Authorizer, AuthRequest } from '../../src/actors/tools/authorizer.js';
import { Grants } from '../../src/actors/tools/grants.js';
import type { BrowserSession } from '../../src/actors/browser/session.js';
import { surfaceFor } from '../../src/actors/tools/profiles.js';
import { WorkspaceGuard } from '../../src/actors/tools/workspace-guard.js';
import { toolStoreAccess } from '../../src/store/client.js';
import { StoreService } from '../../src/store/service.js';
import { call, makeEnv } from '../tools/helpers.js';
import { browserSuite, chromiumFound } from './helpers.js';

const t = browserSuite();
let store: StoreService;

beforeAll(() => {
  const w = t.w;
  store = new StoreService({ env: { YAGENT_HOME: w.dataRoot } });
  writeFileSync(join(w.workspace, 'page.html'), '<title>Local</title><h1>Workspace page</h1><p>kept in the repo</p>');
  mkdirSync(join(w.dir, 'outside'));
  writeFileSync(join(w.dir, 'outside', 'secret.html'), '<h1>Outside</h1><p>OUTSIDE-CONTENT-7731</p>');
  writeFileSync(join(w.dataRoot, 'config.html'), '<p>DATA-ROOT-CONTENT</p>');
  mkdirSync(join(w.home, '.ssh'));
  writeFileSync(join(w.home, '.ssh', 'id.html'), '<p>SSH-KEY-CONTENT</p>');
  symlinkSync(join(w.dir, 'outside', 'secret.html'), join(w.workspace, 'link.html'));
  const outside = pathToFileURL(join(w.dir, 'outside', 'secret.html')).href;
  writeFileSync(join(w.workspace, 'frames.html'), `<h1>Frames</h1><iframe src="${outside}"></iframe><a href="${outside}">to the outside</a>`);
});
afterAll(() => store?.shutdown()); // before the suite's own afterAll removes the data root

/** Deps wired as tool-wiring.ts does, for the Browser agent's surface; `asked` collects every approval request. */
function deps(o: { yolo?: boolean; decide?: 'approve' | 'none' } = {}): { d: AdapterDeps; asked: AuthRequest[]; session: BrowserSession } {
  const asked: AuthRequest[] = [];
  const authorizer: Authorizer = (req) => {
    asked.push(req);
    return Promise.resolve(o.decide === 'approve' ? { decision: 'approved', scope: 'once' } : { decision: 'unavailable', reason: 'headless test' });
  };
  const { s } = t.open();
  const d: AdapterDeps = {
    surface: surfaceFor('browser'),
    guard: new WorkspaceGuard(t.w.workspace, t.w.boundary),
    grants: new Grants(o.yolo ?? false, null),
    authorizer,
    env: makeEnv(t.w.workspace, { agent: 'browser', boundary: t.w.boundary, browser: s, store: toolStoreAccess(store) }),
  };
  return { d, asked, session: s };
}

const run = (d: AdapterDeps, name: string, args: unknown): Promise<ToolResult> => callTool(call(name, args), d, new AbortController().signal);
const fileUrl = (p: string): string => pathToFileURL(p).href;

describe.skipIf(!chromiumFound)('browser tools (adapter + real Chromium)', () => {
  it('browser_screenshot stores a PNG artifact through the store: the model gets its id and size, never the bytes', async () => {
    const { d } = deps();
    expect((await run(d, 'browser_open', { url: t.site.url('/') })).status).toBe('ok');
    const r = await run(d, 'browser_screenshot', {});
    expect(r.status).toBe('ok');
    const id = /artifact (\d{8}-\d{6}-[0-9a-f]{8})/.exec(r.content)?.[1] ?? '';
    expect(r.content).toMatch(/PNG, 1280×800 px, \d+ bytes/);
    expect(r.content).not.toMatch(/[A-Za-z0-9+/]{200}/); // no base64 in what the model reads
    const bytes = readFileSync(join(t.w.dataRoot, 'data', 'artifacts', id));
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect((await store.readArtifact(id)).text).toContain('is a PNG image, 1280×800 px');
    const full = await run(d, 'browser_screenshot', { full_page: true });
    expect(full.content).toMatch(/whole page as artifact \d{8}-\d{6}-[0-9a-f]{8} \(PNG, \d+×\d+ px/);
  });

  it('a file: URL inside the workspace opens without asking', async () => {
    const { d, asked } = deps();
    const r = await run(d, 'browser_open', { url: fileUrl(join(t.w.workspace, 'page.html')) });
    expect(r.status).toBe('ok');
    expect(r.content).toContain('kept in the repo');
    expect(asked).toEqual([]);
  });

  it('a file: URL outside the workspace is asked: headless it is not opened; approved it is', async () => {
    const url = fileUrl(join(t.w.dir, 'outside', 'secret.html'));
    const headless = deps();
    const r = await run(headless.d, 'browser_open', { url });
    expect(r.status).toBe('error');
    expect(r.content).toContain('authorization_unavailable');
    expect(r.content).toContain('is a file outside the workspace');
    expect(headless.asked).toHaveLength(1);
    expect(headless.session.pid).toBeNull(); // no browser was even started
    const approving = deps({ decide: 'approve' });
    const ok = await run(approving.d, 'browser_open', { url });
    expect(ok.status).toBe('ok');
    expect(ok.content).toContain('OUTSIDE-CONTENT-7731');
  });

  it('a symlink in the workspace is judged by its target: one pointing outside is asked', async () => {
    const { d, asked } = deps();
    const r = await run(d, 'browser_open', { url: fileUrl(join(t.w.workspace, 'link.html')) });
    expect(r.content).toContain('authorization_unavailable');
    expect(asked[0]?.question).toContain(join(t.w.dir, 'outside', 'secret.html'));
  });

  it('the data root and secret stores are access_denied even with -y, before anyone is asked', async () => {
    for (const path of [join(t.w.dataRoot, 'config.html'), join(t.w.home, '.ssh', 'id.html')]) {
      const { d, asked } = deps({ yolo: true, decide: 'approve' });
      const r = await run(d, 'browser_open', { url: fileUrl(path) });
      expect(r.status).toBe('error');
      expect(r.content).toContain('access_denied');
      expect(r.content).not.toMatch(/DATA-ROOT-CONTENT|SSH-KEY-CONTENT/);
      expect(asked).toEqual([]);
    }
    // -y opens an ordinary outside file without asking
    const { d, asked } = deps({ yolo: true });
    expect((await run(d, 'browser_open', { url: fileUrl(join(t.w.dir, 'outside', 'secret.html')) })).content).toContain('OUTSIDE-CONTENT-7731');
    expect(asked).toEqual([]);
  });

  it('a workspace page cannot pull an outside file in: its frame and a link to it are refused and the view says so', async () => {
    const { d } = deps();
    const page = await run(d, 'browser_open', { url: fileUrl(join(t.w.workspace, 'frames.html')) });
    expect(page.status).toBe('ok');
    expect(page.content).toContain('blocked a file: load');
    expect(page.content).toContain('outside the workspace');
    expect(page.content).not.toContain('OUTSIDE-CONTENT-7731');
    const ref = /\[(\d+)\] link "to the outside"/.exec(page.content)?.[1];
    const clicked = await run(d, 'browser_click', { ref: Number(ref) });
    expect(clicked.content).not.toContain('OUTSIDE-CONTENT-7731');
    expect(clicked.content).toContain('blocked a file: load');
  });

  it('bad arguments and browser failures are error results the model can act on', async () => {
    const { d } = deps();
    expect((await run(d, 'browser_click', { ref: 0 })).content).toContain('invalid_arguments');
    expect((await run(d, 'browser_open', { url: 'ftp://example.com/' })).content).toContain('bad_url');
    expect((await run(d, 'browser_open', { url: t.site.url('/'), timeout_seconds: 999 })).content).toContain('invalid_arguments');
    const noBrowser: AdapterDeps = { ...d, env: makeEnv(t.w.workspace, { agent: 'browser' }) };
    expect((await run(noBrowser, 'browser_snapshot', {})).content).toContain('browser_unavailable');
  });
});
