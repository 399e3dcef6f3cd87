// Which browser the Browser agent drives, and what the Director sees when there is none: `[browser] executable`,
// else chromium / chromium-browser / google-chrome / google-chrome-stable on PATH (absolute entries only);
// missing → delegate_browser's description says so with the fix, and a call is that error.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSER_CANDIDATES, discoverBrowser } from '../../src/actors/browser/discover.js';
import { settingsFrom } from '../../src/actors/agents/run-task.js';
import type { ToolHooks } from '../../src/actors/agents/run-agent.js';
import { harnessConfig, makeHarness } from '../agents/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'yagent-discovery-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An executable file `name` in a fresh directory of its own; returns the directory. */
function binDir(name: string, body = '#!/bin/sh\nexit 0\n'): string {
  const d = mkdtempSync(join(dir, 'bin-'));
  writeFileSync(join(d, name), body);
  chmodSync(join(d, name), 0o755);
  return d;
}

const on = { enabled: true, executable: '' };
const noHooks: ToolHooks = { delegate: () => Promise.resolve({ kind: 'ok', content: '' }), customAgents: () => [] };

describe('browser discovery', () => {
  it('finds the first known name on PATH, in the order chromium, chromium-browser, google-chrome, google-chrome-stable', () => {
    expect(BROWSER_CANDIDATES).toEqual(['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']);
    const chrome = binDir('google-chrome');
    const chromium = binDir('chromium-browser');
    expect(discoverBrowser(on, { PATH: `${chrome}:${chromium}` })).toEqual({ ok: true, executable: join(chromium, 'chromium-browser') });
    expect(discoverBrowser(on, { PATH: chrome })).toEqual({ ok: true, executable: join(chrome, 'google-chrome') });
  });

  it('without one on PATH the reason names what was looked for and how to fix it; a non-executable file does not count', () => {
    const d = mkdtempSync(join(dir, 'plain-'));
    writeFileSync(join(d, 'chromium'), 'not executable');
    const r = discoverBrowser(on, { PATH: `${d}:/nonexistent` });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toContain('chromium, chromium-browser, google-chrome, google-chrome-stable');
    expect(r.reason).toContain('apt-get install chromium');
    expect(r.reason).toContain('[browser] executable');
  });

  it('relative PATH entries are ignored: what they find would depend on the process cwd', () => {
    const d = binDir('chromium');
    expect(discoverBrowser(on, { PATH: `bin:.:${join(d, '..', 'nowhere')}` }).ok).toBe(false);
    const cwd = process.cwd();
    try {
      process.chdir(d);
      expect(discoverBrowser(on, { PATH: '.' }).ok).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });

  it('[browser] executable is the browser the Browser agent drives: a path, or a command on PATH; a missing one is named', () => {
    const d = binDir('my-chrome');
    expect(discoverBrowser({ enabled: true, executable: join(d, 'my-chrome') }, { PATH: '' })).toEqual({ ok: true, executable: join(d, 'my-chrome') });
    expect(discoverBrowser({ enabled: true, executable: 'my-chrome' }, { PATH: d })).toEqual({ ok: true, executable: join(d, 'my-chrome') });
    // a configured one wins over PATH, and when it is missing PATH is not tried behind the user's back
    const fallback = binDir('chromium');
    const r = discoverBrowser({ enabled: true, executable: '/nonexistent/chrome' }, { PATH: fallback });
    expect(r).toMatchObject({ ok: false, reason: expect.stringContaining('`[browser] executable = "/nonexistent/chrome"` is not an executable file') });
    // the config loader hands the configured value through (`~/` expanded, a relative path refused: file.test.ts)
    expect(harnessConfig(`[browser]\nexecutable = "${join(d, 'my-chrome')}"\n`).browser.executable).toBe(join(d, 'my-chrome'));
    expect(harnessConfig('[browser]\nexecutable = "~/bin/chrome"\n', { HOME: '/home/u' }).browser.executable).toBe('/home/u/bin/chrome');
    // checked at load like every section: a misspelt key is one warning with the key it meant
    expect(harnessConfig('[browser]\nexecutabel = "/usr/bin/chromium"\n').warnings.join('\n')).toMatch(/executabel.*did you mean.*executable/);
  });

  it('[browser] enable = false removes the Browser agent (like -d browser): no delegate_browser, a call is tool_disabled', async () => {
    const config = harnessConfig('[browser]\nenable = false\n');
    expect(settingsFrom({ prompt: 'x', workspace: dir, config }, 't', 'b').disabledAgents).toContain('browser');
    expect(settingsFrom({ prompt: 'x', workspace: dir, config: harnessConfig() }, 't', 'b').disabledAgents).not.toContain('browser');
    const h = makeHarness({}, { config });
    const tools = h.env(null).toolsFor({ agent: 'director', role: 'director', brief: '', settings: h.settings, delegationId: null, parentSessionId: null, palette: [] }, noHooks);
    expect(tools.defs().map((d) => d.name)).not.toContain('delegate_browser');
    const [out] = (await tools.runBatch([{ id: 'c1', name: 'delegate_browser', arguments: '{"task":"open x"}' }], { signal: new AbortController().signal, maxParallel: 1 })).outcomes;
    expect(out?.content).toContain('tool_disabled');
    expect(out?.content).toContain('[browser] enable = false');
  });

  it("no browser: the Director's delegate_browser says it is unavailable and how to fix it; a call is that error, never a crash", async () => {
    const h = makeHarness({}, { config: harnessConfig('[browser]\nexecutable = "/nonexistent/chrome"\n') });
    const input = { agent: 'director', role: 'director' as const, brief: '', settings: h.settings, delegationId: null, parentSessionId: null, palette: [] };
    const tools = h.env(null).toolsFor(input, noHooks);
    const def = tools.defs().find((d) => d.name === 'delegate_browser');
    expect(def?.description).toMatch(/^UNAVAILABLE — The Browser agent is unavailable on this machine: `\[browser\] executable = "\/nonexistent\/chrome"`/);
    const [out] = (await tools.runBatch([{ id: 'c1', name: 'delegate_browser', arguments: '{"task":"open x"}' }], { signal: new AbortController().signal, maxParallel: 1 })).outcomes;
    expect(out?.ok).toBe(false);
    expect(out?.content).toContain('agent_unavailable');
    expect(out?.content).toContain('/nonexistent/chrome');
    // with a browser there, the same surface is the plain one
    const d = binDir('chromium');
    const ok = makeHarness({}, { config: harnessConfig(`[browser]\nexecutable = "${join(d, 'chromium')}"\n`) });
    const plain = ok.env(null).toolsFor({ ...input, settings: ok.settings }, noHooks).defs().find((x) => x.name === 'delegate_browser');
    expect(plain?.description.startsWith('Delegate work in a real web browser')).toBe(true);
  });

  it('the Browser agent launches exactly the configured executable (a fake one that is no browser fails to start, naming it)', async () => {
    const fake = binDir('fake-chrome', '#!/bin/sh\necho "fake browser here" >&2\nexit 3\n');
    mkdirSync(join(dir, 'ws'), { recursive: true });
    const h = makeHarness({}, { config: harnessConfig(`[browser]\nexecutable = "${join(fake, 'fake-chrome')}"\n`) });
    const tools = h.env(null).toolsFor({ agent: 'browser', role: 'browser', brief: '', settings: h.settings, delegationId: 'd1', parentSessionId: null, palette: [] }, noHooks);
    const [out] = (await tools.runBatch([{ id: 'c1', name: 'browser_snapshot', arguments: '{}' }], { signal: new AbortController().signal, maxParallel: 1 })).outcomes;
    await tools.close?.();
    expect(out?.content).toContain('browser_launch_failed');
    expect(out?.content).toContain(join(fake, 'fake-chrome'));
    expect(out?.content).toContain('exit code 3');
    expect(out?.content).toContain('fake browser here');
  });
});
