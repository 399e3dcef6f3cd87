// The Browser agent as a run, wired by production's buildAgentEnv (the harness swaps only the model and the host):
// a delegation browses and leaves one note with its full deliverable, and its browser ends with its run —
// agent_exit, a cancel mid-call, or the delegation's total timeout. Checked by pid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import type { LlmRequest } from '../../src/actors/llm/types.js';
import { exitCall, makeHarness, ScriptedModel, THOUGHT, toolMessages } from '../agents/harness.js';
import { until } from '../runtime/helpers.js';
import { childBrowsers, chromiumFound, startSite, type Site } from './helpers.js';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());

const last = (req: LlmRequest): string => toolMessages(req).at(-1) ?? '';
const hangs = (): number => site.seen().filter((p) => p === '/hang').length;

describe.skipIf(!chromiumFound)('the Browser agent run (real Chromium)', () => {
  it('Director → delegate_browser → open, click, read → one note with the full deliverable; no browser left afterwards', async () => {
    const h = makeHarness();
    const model = new ScriptedModel({
      director: [
        { text: THOUGHT, calls: [{ name: 'delegate_browser', args: { task: `open ${site.url('/')}, press Reveal, report the word` } }] },
        (req) => ({ text: `Reported: ${last(req)}` }),
      ],
      browser: [
        { text: THOUGHT, calls: [{ name: 'browser_open', args: { url: site.url('/') } }] },
        (req) => ({ text: THOUGHT, calls: [{ name: 'browser_click', args: { ref: Number(/\[(\d+)\] button "Reveal"/.exec(last(req))?.[1]) } }] }),
        (req) => exitCall(`The page said: ${/The secret word is \w+/.exec(last(req))?.[0] ?? 'nothing'}`, 'ok', ['word read after clicking Reveal']),
      ],
    });
    const out = await h.run(model, 'what is the secret word?');
    expect(out.text).toContain('The page said: The secret word is tangerine');
    const notes = await h.store.listNotes(h.settings.boardId, { agent: 'browser' });
    expect(notes).toHaveLength(1);
    expect((await h.store.readNote(h.settings.boardId, notes[0]?.ref ?? ''))?.body).toContain('The secret word is tangerine');
    // the Browser agent's prompt and surface are the production ones
    const req = model.byAgent('browser')[0];
    expect(req?.messages[0]?.content).toContain('# Role: Browser agent');
    expect(req?.tools.map((t) => t.name)).toContain('browser_open');
    expect(req?.tools.map((t) => t.name)).not.toContain('read_file');
    expect(childBrowsers()).toEqual([]);
  });

  it('a Browser run cancelled while its browser waits on a page ends cancelled, with its browser killed', async () => {
    const h = makeHarness();
    const ctl = new AbortController();
    const before = hangs();
    const model = new ScriptedModel({ browser: [{ text: THOUGHT, calls: [{ name: 'browser_open', args: { url: site.url('/hang'), timeout_seconds: 120 } }] }] });
    const run = h.env(model, { signal: ctl.signal });
    const done = runAgent(run, { agent: 'browser', role: 'browser', brief: 'open it', settings: h.settings, delegationId: 'd-cancel', parentSessionId: null });
    await until(() => hangs() > before, 30_000, 'the browser asked for the page');
    expect(childBrowsers().length).toBeGreaterThan(0);
    ctl.abort();
    expect((await done).stopReason).toBe('cancelled');
    await until(() => childBrowsers().length === 0, 20_000, 'the browser gone');
    expect(childBrowsers()).toEqual([]);
  });

  it("the delegation's total timeout ends the run and its browser mid-call", async () => {
    const h = makeHarness({ delegateTotalMs: 4000 });
    const before = hangs();
    const model = new ScriptedModel({ browser: [{ text: THOUGHT, calls: [{ name: 'browser_open', args: { url: site.url('/hang'), timeout_seconds: 120 } }] }] });
    const out = await runAgent(h.env(model), { agent: 'browser', role: 'browser', brief: 'open it', settings: h.settings, delegationId: 'd-timeout', parentSessionId: null });
    expect(hangs()).toBeGreaterThan(before);
    expect(out.stopReason).toBe('total_timeout');
    await until(() => childBrowsers().length === 0, 20_000, 'the browser gone');
    expect(childBrowsers()).toEqual([]);
  });
});
