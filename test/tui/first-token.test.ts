// A step's first visible text is painted when it arrives, not at the next frame slot (first token → screen), while
// the rest of every stream, a parallel delegation's too, still coalesces into frames. The frame clock is manual:
// nothing paints unless the app flushes.
import { afterEach, describe, expect, it } from 'vitest';
import { TuiApp } from '../../bin/tui/app.js';
import type { TuiBackend } from '../../bin/tui/backend.js';
import { DEFAULT_BINDINGS } from '../../bin/tui/keys.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { Envelope } from '../../src/runtime/protocol/index.js';
import { makeTerm } from './harness.js';

const apps: TuiApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.quit();
});

async function open(tree: TuiBackend['tree'] = () => Promise.resolve(null)): Promise<{ app: TuiApp; clock: ManualClock; screen: () => Promise<string>; deliver: (p: Envelope['payload'], delegationId?: string | null) => void; written: () => string }> {
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
    tree: () => tree(),
    timeline: () => Promise.resolve([]),
  };
  const term = makeTerm(100, 30);
  // every byte handed to the terminal, as it is handed (what a real terminal would receive by then)
  let out = '';
  const write = term.io.output.write.bind(term.io.output) as (chunk: string | Uint8Array) => boolean;
  Object.assign(term.io.output, { write: (chunk: string | Uint8Array) => ((out += String(chunk)), write(chunk)) });
  const clock = new ManualClock(1_000);
  const app = new TuiApp({ backend, bindings: DEFAULT_BINDINGS, io: term.io, clock });
  apps.push(app);
  app.submit('go');
  await new Promise((r) => setImmediate(r)); // the turn has its task id
  const deliver = (payload: Envelope['payload'], delegationId: string | null = null): void =>
    on({ seq: ++seq, taskId: 't', delegationId, source: 'agent' in payload ? payload.agent : 'director', type: payload.type, lane: 'normal', ts: 0, payload });
  const screen = async (): Promise<string> => (await term.settle(), term.screenText());
  return { app, clock, screen, deliver, written: () => out };
}

describe('first token → screen', () => {
  it("each step's first visible text paints at once, beside a delegation streaming in parallel; later chunks wait for a frame", async () => {
    const { app, screen, deliver } = await open();
    deliver({ type: 'delegation_start', agent: 'director', callId: 'd1', child: 'repo', task: 'long stream' });
    deliver({ type: 'delegation_start', agent: 'director', callId: 'd2', child: 'repo', task: 'short steps' });
    deliver({ type: 'ai_stream_start', agent: 'repo', step: 1 }, 'd1');
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'longtext-one ' }, 'd1');
    expect(await screen()).toContain('longtext-one');
    // the parallel stream's later chunks coalesce: nothing paints until the frame slot
    const frames = app.frames.frames;
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'longtext-two ' }, 'd1');
    expect(app.frames.frames).toBe(frames);
    expect(await screen()).not.toContain('longtext-two');
    // the other delegation's step: its first text is on screen without any frame slot passing
    deliver({ type: 'ai_stream_start', agent: 'repo', step: 1 }, 'd2');
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'QX01Z' }, 'd2');
    expect(app.frames.frames).toBe(frames + 1);
    expect(await screen()).toContain('QX01Z');
    deliver({ type: 'ai_chunk', agent: 'repo', text: ' QX01-more' }, 'd2');
    expect(app.frames.frames).toBe(frames + 1);
    // its next step: a hidden <thought> opening is not visible text; the first words after it are
    deliver({ type: 'ai_stream_end', agent: 'repo' }, 'd2');
    deliver({ type: 'ai_stream_start', agent: 'repo', step: 2 }, 'd2');
    deliver({ type: 'ai_chunk', agent: 'repo', text: '<thought>\ngoal: x\n</thought>\n' }, 'd2');
    expect(app.frames.frames).toBe(frames + 1);
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'QX02Z' }, 'd2');
    expect(app.frames.frames).toBe(frames + 2);
    expect(await screen()).toContain('QX02Z');
  });

  it("a first token's frame renders only its entry: a parallel stream's grown text waits for the next frame slot", async () => {
    const { app, clock, screen, deliver } = await open();
    deliver({ type: 'delegation_start', agent: 'director', callId: 'd1', child: 'repo', task: 'short steps' });
    deliver({ type: 'delegation_start', agent: 'director', callId: 'd2', child: 'repo', task: 'long stream' });
    deliver({ type: 'ai_stream_start', agent: 'repo', step: 1 }, 'd2');
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'longtext-one ' }, 'd2');
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'longtext-two ' }, 'd2');
    deliver({ type: 'ai_stream_start', agent: 'repo', step: 1 }, 'd1');
    const frames = app.frames.frames;
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'QX05Z' }, 'd1');
    expect(app.frames.frames).toBe(frames + 1);
    const first = await screen();
    expect(first).toContain('QX05Z');
    expect(first).toContain('longtext-one');
    expect(first).not.toContain('longtext-two');
    // the kept text is not lost: the next frame slot shows it, with nothing else arriving
    clock.advance(100);
    expect(app.frames.frames).toBe(frames + 2);
    expect(await screen()).toContain('longtext-two');
  });

  it('the first text leaves for the terminal before its event handler returns (no event-loop turn in between)', async () => {
    const { deliver, written } = await open();
    deliver({ type: 'delegation_start', agent: 'director', callId: 'd1', child: 'repo', task: 'short steps' });
    deliver({ type: 'ai_stream_start', agent: 'repo', step: 1 }, 'd1');
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'QX03Z' }, 'd1');
    // synchronously: blessed's own buffering would send it only at the next setImmediate
    expect(written()).toContain('QX03Z');
  });

  it("the supervision tree (a local host builds it synchronously) is fetched after the first token's frame is out", async () => {
    let out = (): string => '';
    const seen: string[] = [];
    const { clock, deliver, written } = await open(() => (seen.push(out()), Promise.resolve(null)));
    out = written;
    deliver({ type: 'delegation_start', agent: 'director', callId: 'd1', child: 'repo', task: 'short steps' });
    deliver({ type: 'ai_stream_start', agent: 'repo', step: 1 }, 'd1');
    // a fetch is due (≤ 2/s): the first token's paint is the one that asks
    clock.advance(600);
    const before = seen.length;
    deliver({ type: 'ai_chunk', agent: 'repo', text: 'QX04Z' }, 'd1');
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)).toContain('QX04Z');
  });
});
