// The Browser agent end to end through the real CLI (`yagent -p`), on a scripted model: the Director delegates to
// browser, the Browser agent opens a local page, reads it, clicks, and reports what the page said; the Director's
// answer carries it. Workers, the browser, the store and the page server are real; only the model is scripted.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, startSite, type Site } from '../browser/helpers.js';
import { collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';
import { GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';

let sb: Sandbox | undefined;
let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterEach(() => sb?.cleanup());
afterAll(() => site?.close());

const THOUGHT = '<thought>\\ngoal: report what the page says\\nstep: the next browser action\\nreason: the last view\\nplan:\\n[>] act\\n</thought>';

/** Director → delegate_browser; Browser: open, find "Reveal" in the view, click it, read the revealed word, exit. */
function browsingScript(url: string): string {
  return `${PRELUDE}
const T = ${JSON.stringify(THOUGHT)};
export default {
  director: [
    call('delegate_browser', { task: 'Open ${url}, press Reveal and report the secret word.', context_refs: [] }, T),
    (req) => say('Browser report: ' + lastTool(req)),
    ...times(3, say('done')),
  ],
  browser: [
    call('browser_open', { url: ${JSON.stringify(url)} }, T),
    (req) => {
      const ref = /\\[(\\d+)\\] button "Reveal"/.exec(lastTool(req))?.[1];
      return ref ? call('browser_click', { ref: Number(ref) }, T) : call('agent_exit', { conclusion: 'no Reveal button in: ' + lastTool(req), status: 'error' }, T);
    },
    (req) => {
      const word = /The secret word is (\\w+)/.exec(lastTool(req))?.[1] ?? 'NOT-FOUND';
      return call('agent_exit', { conclusion: 'The page at ${url} said: the secret word is ' + word + '.', facts: ['secret word: ' + word], artifacts: [], status: 'ok' }, T);
    },
    ...times(3, say('done')),
  ],
};
`;
}

/** Processes whose command line names `needle` (a browser whose profile lives under the sandbox). */
function processesNaming(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle)) out.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return out;
}

describe.skipIf(!chromiumFound)('the Browser agent through the CLI (real Chromium)', () => {
  it('yagent -p: the Director delegates to browser, which opens a local page, clicks, and the answer carries what the page said', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'What is the secret word on the local shop page?'], withScript(sb, browsingScript(site.url('/'))), { cwd: project(sb) });
    expect(r.stderr).toMatch(/director → browser/);
    expect(r.stdout).toContain('the secret word is tangerine');
    expect(r.stdout).toContain('[browser ok');
    expect(r.code).toBe(0);
    // the page was really fetched by the browser, and nothing of it is left: no process, no temp profile
    expect(site.seen()).toContain('/');
    expect(processesNaming(join(sb.dir, 'tmp'))).toEqual([]);
    expect(readdirSync(join(sb.dir, 'tmp')).filter((n) => n.startsWith('yagent-browser-'))).toEqual([]);
    // the delegation wrote its note with the full deliverable
    const notes = join(sb.home, 'notes');
    const browserNotes = readdirSync(notes).flatMap((board) => (existsSync(join(notes, board, 'browser')) ? readdirSync(join(notes, board, 'browser')).map((f) => join(notes, board, 'browser', f)) : []));
    expect(browserNotes).toHaveLength(1);
    expect(readFileSync(browserNotes[0] ?? '', 'utf8')).toContain('the secret word is tangerine');
  });

  it('SIGTERM of the CLI while the browser waits on a page that never answers: no browser process is left (by pid)', async () => {
    sb = sandbox(GOOD_CONFIG);
    const hangs = (): number => site.seen().filter((p) => p === '/hang').length;
    const before = hangs();
    const script = `${PRELUDE}
export default {
  director: [call('delegate_browser', { task: 'open the slow page', context_refs: [] }), ...times(3, say('done'))],
  browser: [call('browser_open', { url: ${JSON.stringify(site.url('/hang'))}, timeout_seconds: 120 }), ...times(3, say('done'))],
};
`;
    // secrets in the CLI's environment must not reach the browser (it gets run_bash's built env)
    const child = start(['-p', 'open the slow page'], { ...withScript(sb, script), MY_SERVICE_API_KEY: 'sk-browser-must-not-see', DEPLOY_TOKEN: 'tok-browser-must-not-see' }, { cwd: project(sb) });
    const done = collect(child);
    const tmp = join(sb.dir, 'tmp');
    await until(() => (hangs() > before ? true : undefined), 'the browser asked for the page', 60_000);
    const pids = processesNaming(tmp);
    expect(pids.length).toBeGreaterThan(0);
    const environ = readFileSync(`/proc/${pids[0] ?? 0}/environ`, 'utf8').split('\0');
    expect(environ.some((v) => v.includes('must-not-see'))).toBe(false);
    expect(environ.find((v) => v.startsWith('HOME='))).toMatch(new RegExp(`^HOME=${tmp}/yagent-browser-`));
    expect(environ.some((v) => v.startsWith('PATH='))).toBe(true);
    child.kill('SIGTERM');
    await done;
    await until(() => (processesNaming(tmp).length === 0 ? true : undefined), 'every browser process gone', GONE_DEADLINE_MS);
    expect(pids.filter((pid) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z'))).toEqual([]);
  });
});

describe('without a browser (PATH without chromium)', () => {
  it("the Director's delegate_browser says the Browser agent is unavailable and how to fix it; the call is a tool error, the run goes on", async () => {
    sb = sandbox(GOOD_CONFIG);
    const script = `${PRELUDE}
let answer = say('none yet');
const described = (req) => (req.body.tools || []).map((t) => t.function || t).find((f) => f.name === 'delegate_browser')?.description ?? 'NO delegate_browser';
export default {
  director: [
    call('delegate_browser', { task: 'open http://127.0.0.1:9/', context_refs: [] }),
    (req) => (answer = say('Described as: ' + described(req) + '\\nCall result: ' + lastTool(req))),
    // no delegation ran, so the Director is reminded to delegate: it confirms the same answer
    ...times(4, () => answer),
  ],
};
`;
    const r = await runCli(['-p', 'open the page'], { ...withScript(sb, script), PATH: join(sb.dir, 'empty-bin') }, { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Described as: UNAVAILABLE — The Browser agent is unavailable on this machine: no Chromium or Chrome was found');
    expect(r.stdout).toContain('apt-get install chromium');
    expect(r.stdout).toContain('[browser] executable');
    expect(r.stdout).toMatch(/Call result: \{"error":\{"kind":"agent_unavailable"/);
  });
});
