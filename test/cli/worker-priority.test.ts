// The screen outranks agent compute: when the TUI draws in the process, every worker its runtime boots (the
// prestarted Director's thread bundle, delegations, the store, fixtures on the generic worker) lowers its own thread's
// Linux nice by SCREEN_NICE at boot; a headless run's workers stay at the process's priority. Read from the kernel:
// the nice field of /proc/<pid>/task/<tid>/stat of the real worker thread.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { prestartDirector, SCREEN_NICE, screenNice } from '../../bin/host/boot-plan.js';
import { startRuntime } from '../../bin/host/runtime-adapter.js';
import { drawsScreen, parseCommand } from '../../bin/cli/args.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { prestartedCount, releasePrestarted } from '../../src/runtime/spare-boot.js';

const FIXTURE = 'src/runtime/testing/fixture-actor.js';
const linux = process.platform === 'linux';

/** A thread's nice (field 19 of its stat; the fields after the command name start at field 3). */
function niceOf(pid: number, tid: number): number {
  return niceIn(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
}

function niceIn(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** The nice of every thread of `pid` but its main thread. */
function otherThreadsNice(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map(Number).filter((t) => t !== pid).map((t) => {
    try {
      return niceOf(pid, t);
    } catch {
      return NaN; // a thread that ended between the listing and the read
    }
  }).filter((n) => !Number.isNaN(n));
}

const config = { llm: { maxInFlightRequests: 0 } } as never;

let rt: Runtime | undefined;
afterEach(async () => {
  await rt?.shutdown(2000);
  rt = undefined;
  await releasePrestarted();
});

/** Spawns the fixture on `runtime` and returns its worker thread's nice (the thread reads its stat file itself, from
 *  /proc/<pid>/task/<its tid>: it ends with the actor). */
async function fixtureNice(runtime: Runtime, task: string): Promise<number> {
  const t = await runtime.startTask(task);
  const { tid, stat } = (await t.spawn({ name: 'thread', module: FIXTURE, input: { mode: 'thread' } })) as { tid: number | null; stat: string | null };
  expect(tid).toBeGreaterThan(0);
  expect(tid).not.toBe(process.pid);
  await runtime.endTask(task);
  return niceIn(stat ?? '');
}

describe('worker thread priority', () => {
  it('YAGENT_SCREEN_NICE sets how far below (0 keeps the terminal priority); anything but 0-19 keeps the default 10', () => {
    expect(screenNice('0')).toBe(0);
    expect(screenNice('12')).toBe(12);
    expect(screenNice('5')).toBe(5);
    for (const bad of [undefined, '', '-1', '20', '2.5', 'high']) expect(screenNice(bad)).toBe(10);
  });
  it('only the TUI draws a screen in the process: a bare `yagent` on a terminal, not -p, --attach or a pipe', () => {
    const tty = { stdin: true, stdout: true };
    expect(drawsScreen(parseCommand([]), tty)).toBe(true);
    expect(drawsScreen(parseCommand(['fix it']), tty)).toBe(true);
    expect(drawsScreen(parseCommand(['-p', 'fix it']), tty)).toBe(false);
    expect(drawsScreen(parseCommand(['--attach']), tty)).toBe(false);
    expect(drawsScreen(parseCommand([]), { stdin: true, stdout: false })).toBe(false);
    expect(drawsScreen(parseCommand(['demo']), tty)).toBe(false);
  });

  // headless first: nothing in this process has been lowered yet, so every thread is read
  it.skipIf(!linux)("headless (-p, batch, serve): the runtime's workers run at the process's priority", async () => {
    const base = niceOf(process.pid, process.pid);
    rt = await startRuntime(false, config);
    await rt.warm();
    expect(await fixtureNice(rt, 'headless')).toBe(base);
    expect(otherThreadsNice(process.pid).every((n) => n === base)).toBe(true);
  }, 60_000);

  it.skipIf(!linux)('TUI: the prestarted Director spare and every worker of its runtime run SCREEN_NICE below the main thread', async () => {
    const base = niceOf(process.pid, process.pid);
    const low = Math.min(19, base + SCREEN_NICE);
    expect(SCREEN_NICE).toBe(10);
    prestartDirector(false, true);
    rt = await startRuntime(true, config, undefined, undefined, true);
    expect(prestartedCount()).toBe(0); // adopted: the prestart and the pool have the same priority
    await rt.warm(); // the Director's spare (the agent thread bundle) has booted
    expect(otherThreadsNice(process.pid)).toContain(low);
    expect(await fixtureNice(rt, 'tui')).toBe(low); // a generic worker booted for the fixture
    expect(niceOf(process.pid, process.pid)).toBe(base); // the main thread keeps its priority
  }, 60_000);
});
