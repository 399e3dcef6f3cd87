// Frames draw only what changed: a keystroke redraws the input box alone, a streamed chunk the stream (and a dialog
// over it); after any sequence of steps the terminal's cells equal the same frame painted on a fresh screen.
import { afterEach, describe, expect, it } from 'vitest';
import { TuiApp } from '../../bin/tui/app.js';
import type { TuiBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS } from '../../bin/tui/keys.js';
import { computeLayout } from '../../bin/tui/layout.js';
import { TuiScreen, type Frame } from '../../bin/tui/screen.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { makeTerm, type Term } from './harness.js';

const BOXES = ['stream', 'sidebar', 'rule', 'input', 'status', 'dialog'];

const apps: TuiApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
});

/** The TUI on a cols×rows terminal whose turns stream what `deliver` sends; `drawn` lists the boxes each render drew. */
async function open(cols: number, rows: number): Promise<{ app: TuiApp; term: Term; deliver: (p: Envelope['payload']) => void; drawn: string[] }> {
  let on: (env: Envelope) => void = () => undefined;
  let seq = 0;
  let end: () => void = () => undefined;
  const backend: TuiBackend = {
    where: 'local',
    start: () => Promise.resolve({ taskId: 't', done: new Promise((r) => (end = () => r(null))) }),
    cancel: () => Promise.resolve(end()),
    pause: () => Promise.resolve(),
    resume: () => Promise.resolve(),
    pauseActor: () => Promise.resolve([]),
    respond: () => Promise.resolve(),
    subscribe: (fn) => ((on = fn), () => undefined),
    tree: () => Promise.resolve(null),
    timeline: () => Promise.resolve([]),
  };
  const term = makeTerm(cols, rows);
  const app = new TuiApp({ backend, bindings: DEFAULT_BINDINGS, io: term.io });
  apps.push(app);
  const drawn: string[] = [];
  app.screen.screen.children.forEach((el, i) => el.on('render', () => drawn.push(BOXES[i] ?? '?')));
  const deliver = (payload: Envelope['payload']): void => {
    const critical = payload.type === 'user_help_needed';
    on({ seq: ++seq, taskId: 't', delegationId: null, source: 'director', type: payload.type, lane: critical ? 'critical' : 'normal', ts: 0, payload });
    app.frames.flush();
  };
  await term.settle();
  return { app, term, deliver, drawn };
}

/** The same frame painted on a fresh screen of the terminal's size: every cell drawn from scratch. */
async function fresh(app: TuiApp, term: Term): Promise<string[]> {
  const other = makeTerm(term.cols, term.height);
  const screen = new TuiScreen(other.io);
  screen.paint(app.frame());
  await other.settle();
  screen.destroy();
  return other.rows();
}

describe('frames draw only what changed', () => {
  it('a keystroke redraws the input box alone; a chunk the stream, and a dialog over it with it', async () => {
    const { term, deliver, drawn } = await open(100, 30);
    term.type('hel');
    await term.settle();
    drawn.length = 0;
    term.type('l');
    await term.settle();
    expect(drawn).toEqual(['input']);
    term.type('\r');
    await term.settle();
    await new Promise((r) => setImmediate(r)); // the turn has its task id
    deliver({ type: 'ai_chunk', agent: 'director', text: 'one' });
    deliver({ type: 'user_help_needed', agent: 'coding', requestId: 'r1', kind: 'authorization', question: 'allow?' });
    drawn.length = 0;
    deliver({ type: 'ai_chunk', agent: 'director', text: ' two' });
    expect(drawn).toEqual(['stream', 'dialog']);
  });

  it('after every step the cells equal the same frame painted on a fresh screen', async () => {
    const { app, term, deliver } = await open(100, 30);
    const same = async (): Promise<void> => {
      await term.settle();
      expect(term.rows()).toEqual(await fresh(app, term));
    };
    const steps: (() => void)[] = [
      () => term.type('hello'),
      () => term.type('\x1b\r'), // M-enter: a second input line, the input box grows
      () => term.type('world\x7f'),
      () => term.type('\r'),
      () => deliver({ type: 'ai_chunk', agent: 'director', text: '# Title\n\nsome **bold** text ' }),
      () => deliver({ type: 'user_help_needed', agent: 'coding', requestId: 'r1', kind: 'authorization', question: 'allow step one?' }),
      () => deliver({ type: 'ai_chunk', agent: 'director', text: 'streamed under the dialog\n'.repeat(12) }),
      () => deliver({ type: 'user_help_needed', agent: 'coding', requestId: 'r2', kind: 'question', question: 'which one?\nsecond line\nthird line' }),
      () => term.type('y'), // approves r1: the taller question dialog shows
      () => term.resize(70, 20), // the sidebar collapses
      () => term.type('an answer\r'),
      () => deliver({ type: 'tool_call_start', agent: 'director', callId: 'c1', name: 'read_file', brief: 'a.ts' }),
      () => term.resize(120, 40),
      () => term.type('\x1b[5~'), // PageUp scrolls the stream
      () => term.type('\x1b[6~'),
    ];
    for (const step of steps) {
      step();
      await same();
    }
    expect(app.helps).toEqual([]);
  });

  it('a box that moved with the same text is drawn at its new place, and what it covered shows again', async () => {
    const term = makeTerm(60, 20);
    const screen = new TuiScreen(term.io);
    const layout = computeLayout(60, 20, 1);
    const rows = (n: number, c: string): string[] => Array.from({ length: n }, (_, i) => `${c}${i}`.padEnd(60, c));
    const frame = (inputTop: number): Frame => ({
      layout: { ...layout, input: { ...layout.input, top: inputTop } }, // only the dialog's place follows it
      stream: rows(layout.stream.height, '.'),
      sidebar: [],
      input: rows(layout.input.height, '-'),
      status: 'status',
      dialog: { width: 20, lines: ['┌──────────────────┐', '│ the same dialog  │', '└──────────────────┘'] },
      cursor: null,
    });
    try {
      for (const top of [layout.input.top, layout.input.top - 6, layout.input.top]) {
        screen.paint(frame(top));
        await term.settle();
        const other = makeTerm(60, 20);
        const clean = new TuiScreen(other.io);
        clean.paint(frame(top));
        await other.settle();
        clean.destroy();
        expect(term.rows()).toEqual(other.rows());
      }
    } finally {
      screen.destroy();
    }
  });
});
