// Rules of the in-thread primitives: named tasks, pause gate, activity clock, manual clock, abort chain.
import { describe, expect, it } from 'vitest';
import { NamedTasks } from '../../src/runtime/tasks.js';
import { PauseController, ActivityClock, type ActivityTimeout } from '../../src/runtime/pause.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { childController, timeoutSignal } from '../../src/runtime/abort-chain.js';

describe('named tasks', () => {
  it('task errors are caught and reported with the task name, never unhandled', async () => {
    const seen: string[] = [];
    const g = new NamedTasks({ onError: (name, err) => seen.push(`${name}:${(err as Error).message}`) });
    await g.go('exploder', () => Promise.reject(new Error('bang')));
    await g.go('sync-thrower', () => {
      throw new Error('sync');
    });
    expect(seen).toEqual(['exploder:bang', 'sync-thrower:sync']);
    expect(g.running()).toEqual([]);
  });

  it('drain names the stuck task that ignores its signal', async () => {
    const clock = new ManualClock();
    const g = new NamedTasks({ clock });
    void g.go('polite', (signal) => new Promise<void>((r) => signal.addEventListener('abort', () => r())));
    void g.go('stuck', () => new Promise<void>(() => undefined));
    expect(g.running().sort()).toEqual(['polite', 'stuck']);
    const drained = g.drain(1000);
    await Promise.resolve();
    clock.advance(1000);
    expect(await drained).toEqual(['stuck']);
  });

  it('go is awaitable and running() lists names while they run', async () => {
    const g = new NamedTasks();
    let release!: () => void;
    const p = g.go('worker', () => new Promise<void>((r) => (release = r)));
    expect(g.running()).toEqual(['worker']);
    release();
    await p;
    expect(g.running()).toEqual([]);
  });
});

describe('pause gate', () => {
  it('pause gate blocks at the boundary and resumes without cancelling', async () => {
    const gate = new PauseController();
    const ctl = new AbortController();
    gate.pause();
    let passed = false;
    const waiting = gate.wait(ctl.signal).then(() => (passed = true));
    await new Promise((r) => setImmediate(r));
    expect(passed).toBe(false);
    gate.resume();
    await waiting;
    expect(passed).toBe(true);
    expect(ctl.signal.aborted).toBe(false);
  });

  it('a paused wait rejects only when its own signal aborts', async () => {
    const gate = new PauseController();
    gate.pause();
    const ctl = new AbortController();
    const w = gate.wait(ctl.signal);
    ctl.abort(new Error('cancel'));
    await expect(w).rejects.toThrow('cancel');
    expect(gate.paused).toBe(true);
  });
});

describe('manual clock (the one fake time)', () => {
  it('fires due timers in due order, chained ones too if due, and now() reads each timer\'s due time', () => {
    const clock = new ManualClock(1000);
    const seen: string[] = [];
    clock.setTimeout(() => seen.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => {
      seen.push(`a@${clock.now()}`);
      clock.setTimeout(() => seen.push(`chained@${clock.now()}`), 5);
      clock.setTimeout(() => seen.push(`late@${clock.now()}`), 50);
    }, 10);
    const cancelled = clock.setTimeout(() => seen.push('cancelled'), 15);
    cancelled.cancel();
    clock.advance(30);
    expect(seen).toEqual(['a@1010', 'chained@1015', 'b@1020']);
    expect(clock.now()).toBe(1030);
    expect(clock.pending()).toBe(1);
    clock.advance(30);
    expect(seen.at(-1)).toBe('late@1060');
  });
});

describe('activity clock', () => {
  it('idle and total timers freeze while paused and resume pushes the idle baseline', () => {
    const clock = new ManualClock();
    const gate = new PauseController();
    const fired: ActivityTimeout[] = [];
    const act = new ActivityClock({ clock, gate, idleMs: 100, totalMs: 250, onTimeout: (k) => fired.push(k) });
    clock.advance(60);
    gate.pause();
    clock.advance(10_000); // a long pause counts for neither timer
    expect(fired).toEqual([]);
    expect(act.activeMs()).toBe(60);
    expect(act.idleMs()).toBe(60);
    gate.resume();
    clock.advance(39);
    expect(fired).toEqual([]);
    act.touch();
    clock.advance(99);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual(['idle_timeout']);
  });

  it('total timeout fires on active time even with steady activity', () => {
    const clock = new ManualClock();
    const fired: ActivityTimeout[] = [];
    const act = new ActivityClock({ clock, idleMs: 50, totalMs: 200, onTimeout: (k) => fired.push(k) });
    for (let i = 0; i < 10; i++) {
      clock.advance(30);
      act.touch();
    }
    expect(fired).toEqual(['total_timeout']);
  });
});

describe('abort chain', () => {
  it('a child aborts with its parent and not the other way round', () => {
    const parent = new AbortController();
    const child = childController(parent.signal);
    const grandchild = childController(child.signal);
    const sibling = childController(parent.signal);
    sibling.abort();
    expect(parent.signal.aborted).toBe(false);
    parent.abort(new Error('task cancelled'));
    expect(grandchild.signal.aborted).toBe(true);
    expect((grandchild.signal.reason as Error).message).toBe('task cancelled');
  });

  it('timeoutSignal aborts with code TIMEOUT on the injected clock', () => {
    const clock = new ManualClock();
    const t = timeoutSignal(clock, 100);
    clock.advance(99);
    expect(t.signal.aborted).toBe(false);
    clock.advance(1);
    expect((t.signal.reason as { code?: string }).code).toBe('TIMEOUT');
  });
});

describe('cpu pool', () => {
  it('stateless CPU jobs run on the piscina pool and return their value', async () => {
    const { createCpuPool } = await import('../../src/runtime/cpu-pool.js');
    const pool = createCpuPool('src/runtime/testing/fixture-cpu-job.js', { maxThreads: 1 });
    try {
      expect(await pool.run<{ n: number }, number>({ n: 10 })).toBe(385);
    } finally {
      await pool.close();
    }
  });
});
