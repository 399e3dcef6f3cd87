// Render tests: the real TUI painted into @xterm/headless; assertions read exact cells.
import { afterEach, describe, expect, it } from 'vitest';
import { TuiApp } from '../../bin/tui/app.js';
import type { TuiBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS } from '../../bin/tui/keys.js';
import { makeTerm, type Term } from './harness.js';
import { quitScripted, scripted } from './scripted-backend.js';

/** A supervisor with no task yet: layout tests need no model at all. */
const idle: TuiBackend = {
  where: 'local',
  start: () => Promise.reject(new Error('not in this test')),
  cancel: () => Promise.resolve(),
  pause: () => Promise.resolve(),
  resume: () => Promise.resolve(),
  pauseActor: () => Promise.resolve([]),
  respond: () => Promise.resolve(),
  subscribe: () => () => undefined,
  tree: () => Promise.resolve(null),
  timeline: () => Promise.resolve([]),
};

const apps: TuiApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
  await quitScripted();
});

async function open(cols: number, rows: number): Promise<{ app: TuiApp; term: Term }> {
  const term = makeTerm(cols, rows);
  const app = new TuiApp({ backend: idle, bindings: DEFAULT_BINDINGS, io: term.io });
  apps.push(app);
  await term.settle();
  return { app, term };
}

describe('TUI layout', () => {
  const sizes = [40, 80, 120, 200].flatMap((w) => [12, 24, 50].map((h) => [w, h] as const));
  it.each(sizes)('%ix%i: nothing overflows; the input box and the status line are visible', async (w, h) => {
    const { app, term } = await open(w, h);
    term.type('hello');
    await term.settle();
    app.frames.flush();
    await term.settle();
    const rows = term.rows();
    expect(rows).toHaveLength(h);
    for (const r of rows) expect(r.length).toBe(w);
    // status line: the last row, starting with the run state
    expect(rows[h - 1]).toMatch(/^ ready │ /);
    // input: the rule, then the echoed text, right above the status line
    expect(rows[h - 2]).toBe('> hello'.padEnd(w));
    expect(rows[h - 3]).toBe('─'.repeat(w));
    // the sidebar appears only from 80 columns on
    expect(rows[0]?.includes('Tokens')).toBe(w >= 80);
  });

  it.each(sizes)('%ix%i: an approval dialog keeps both borders and its key line; the input box and the status line stay visible', async (w, h) => {
    const s = await scripted(w, h);
    await s.step('go\r');
    s.deliver({ type: 'user_help_needed', agent: 'coding', requestId: 'r1', kind: 'authorization', question: `Allow create_file (/tmp/x/${'deep/'.repeat(12)}notes.txt)? ${'the path resolves outside the workspace. '.repeat(6)}`, tool: 'create_file', detail: '{"path":"/tmp/x/notes.txt","content":"v0.1"}' });
    await s.step('');
    const rows = s.term.rows();
    for (const r of rows) expect(r.length).toBe(w);
    const top = rows.findIndex((r) => r.includes('┌─ coding needs approval'));
    const bottom = rows.findIndex((r) => /└─+┘/.test(r));
    expect(top).toBeGreaterThanOrEqual(0);
    expect(bottom).toBeGreaterThan(top);
    expect(rows.slice(top, bottom).some((r) => r.includes('y once'))).toBe(true);
    expect(bottom).toBeLessThan(h - 3); // above the input's rule
    expect(rows[h - 3]).toBe('─'.repeat(w));
    expect(rows[h - 1]).toMatch(/^ running │ /);
  });

  it('history: Up recalls the previous entry, Down returns to the draft', async () => {
    const { app, term } = await open(60, 12);
    term.type('/clear\r');
    term.type('dra');
    await term.settle();
    term.type('\x1b[A');
    await term.settle();
    expect(term.row(10)).toBe('> /clear'.padEnd(60));
    term.type('\x1b[B');
    await term.settle();
    expect(term.row(10)).toBe('> dra'.padEnd(60));
    expect(app.input.text).toBe('dra');
  });

  it('idle, Ctrl-C clears a draft first (Up brings it back) and a second one within 2 s quits', async () => {
    const { app, term } = await open(100, 12);
    term.type('a draft');
    await term.settle();
    term.type('\x03');
    await term.settle();
    expect(app.input.text).toBe('');
    expect(term.row(11)).toContain('input cleared (Ctrl-C again to quit)');
    term.type('\x1b[A');
    await term.settle();
    expect(app.input.text).toBe('a draft');
    term.type('\x03');
    await term.settle();
    expect(app.quitting).not.toBeNull();
    await app.exited;
  });

  it('an unknown slash command says so; /help opens a dialog any key closes', async () => {
    const { term } = await open(80, 24);
    term.type('/frobnicate\r');
    await term.settle();
    expect(term.row(23)).toContain('unknown command /frobnicate');
    term.type('/help\r');
    await term.settle();
    expect(term.screenText()).toContain('┌─ commands and keys ─');
    expect(term.screenText()).toContain('/quit');
    expect(term.screenText()).toContain('enter send · M-enter/S-enter/linefeed new line');
    term.type('x');
    await term.settle();
    expect(term.screenText()).not.toContain('┌─ commands and keys ─');
  });
});
