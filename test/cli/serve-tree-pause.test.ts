// A per-actor pause is an event and part of the tree snapshot every client reads: the TUI that paused its Director
// (Ctrl-T, `p`) sees `paused` after a reopen, a second attached TUI sees it in its tree, `attach ps` says it; the
// tree's selection starts on the first agent and its key line offers only the keys that act on the selected row.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../bin/attach/client.js';
import type { TuiApp } from '../../bin/tui/app.js';
import { DiscoverySchema } from '../../bin/server/discovery.js';
import { attachedTui, type AttachedTui } from './attached-tui.js';
import { childReaper, discovered, GOOD_CONFIG, runCli, sandbox, start, until, SERVE_WAIT_MS, withScript, type Sandbox } from './helpers.js';
import { readdirSync, readFileSync } from 'node:fs';

let sb: Sandbox | undefined;
const apps: TuiApp[] = [];
const children = childReaper();
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
  children.reap();
  sb?.cleanup();
});

/** The Director's first request waits for `release`, then answers. */
const script = (dir: string): string => `
import { existsSync, writeFileSync } from 'node:fs';
const wait = async (p) => { while (!existsSync(p)) await new Promise((r) => setTimeout(r, 20)); };
export default { director: Array.from({ length: 5 }, () => async () => { writeFileSync(${JSON.stringify(join(dir, 'asked'))}, 'x'); await wait(${JSON.stringify(join(dir, 'release'))}); return { text: 'finished', finishReason: 'stop' }; }) };
`;

const tui = (client: ControlClient, ws: string): AttachedTui => attachedTui(apps, client, ws, { yolo: false, cols: 100, rows: 24 });

describe('a paused agent, seen from every client', () => {
  it('pausing the Director in one TUI shows paused after a reopen, in a second TUI\'s tree and in attach ps; keys that cannot act are not offered', { timeout: 90_000 }, async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    children.push(start(['serve'], withScript(s, script(s.dir))));
    await discovered(s);
    const runDir = join(s.home, 'run');
    const file = readdirSync(runDir).find((n) => n.startsWith('supervisor-')) ?? '';
    const client = (): ControlClient => new ControlClient(DiscoverySchema.parse(JSON.parse(readFileSync(join(runDir, file), 'utf8'))));

    const a = tui(client(), s.dir);
    await a.step('go\r');
    await until(() => (existsSync(join(s.dir, 'asked')) ? true : undefined), 'the Director asking', SERVE_WAIT_MS);
    // selection starts on the first agent (the Director), and `p` is offered for it
    let screen = await a.step('\x14', (x) => /▸ +director running/.test(x));
    expect(screen).toContain('p pauses director · c cancels the task · Esc closes');
    // the task's row: `p` is not offered there
    screen = await a.step('\x1b[A', (x) => /▸ +task:\S+ running/.test(x));
    expect(screen).toContain('↑↓ select · c cancels the task · Esc closes');
    expect(screen).not.toContain('p pauses');
    await a.step('\x1b[B', (x) => /▸ +director running/.test(x));
    await a.step('p', (x) => /▸ +director paused/.test(x) && x.includes('p continues director'));
    // closed and reopened: the snapshot says paused (the view keeps nothing of its own)
    await a.step('\x1b', (x) => !x.includes('delegation tree'));
    await a.step('\x14', (x) => /▸ +director paused/.test(x));

    // a second client: its tree says paused; it runs no task, so neither p nor c is offered
    const b = tui(client(), s.dir);
    screen = await b.step('\x14', (x) => x.includes('director paused'));
    expect(screen).toContain('↑↓ select · Esc closes');
    expect(screen).not.toMatch(/p (pauses|continues)|c cancels/);
    const ps = await runCli(['attach', 'ps'], s.env);
    expect(ps.stdout).toMatch(/director {2}\[agent\] paused/);
    const events = await runCli(['attach', 'logs', (/task:(\S+) running/.exec(screen)?.[1] ?? ''), '--json'], s.env);
    expect(events.stdout).toContain('"actor_paused"');

    // continued from the first TUI: the task finishes
    await a.step('p', (x) => /▸ +director running/.test(x));
    await a.step('\x1b', (x) => !x.includes('delegation tree'));
    writeFileSync(join(s.dir, 'release'), 'go');
    await a.step('', (x) => x.includes('finished') && x.includes('done ('));
  });
});
