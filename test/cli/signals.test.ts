// Signals outside a client's own handling (start-up, shutdown after the run's handler is gone) still quit through
// process.exit, so the exit hooks run (temp dirs removed, process groups killed): a double Ctrl-C during a demo's
// shutdown left its temp dirs behind. While a client's handler is on, the fallback stays silent.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const SIGNALS = pathToFileURL(resolve('dist/bin/cli/signals.js')).href;

/** A node process with the fallback installed (and `extra` after it); resolves on its first stdout line. */
function child(extra: string): { proc: ReturnType<typeof spawn>; ready: Promise<void>; done: Promise<{ code: number | null; signal: string | null; out: string }> } {
  const marker = join(mkdtempSync(join(tmpdir(), 'signals-')), 'dir');
  const script = `
    import { mkdirSync, rmSync } from 'node:fs';
    const { quitOnUnhandledSignals, onInterrupt } = await import(${JSON.stringify(SIGNALS)});
    mkdirSync(${JSON.stringify(marker)});
    process.once('exit', () => rmSync(${JSON.stringify(marker)}, { recursive: true, force: true }));
    quitOnUnhandledSignals();
    ${extra}
    setInterval(() => undefined, 1000);
    console.log('ready');`;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise<void>((r) => proc.stdout?.on('data', (d: Buffer) => ((out += d.toString()), out.includes('ready') && r())));
  const done = new Promise<{ code: number | null; signal: string | null; out: string }>((r) =>
    proc.on('close', (code, signal) => r({ code, signal, out: `${out}${existsSync(marker) ? 'marker left' : 'marker removed'}` })),
  );
  return { proc, ready, done };
}

describe('signals nobody handles', () => {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${sig} with no client handler exits 130 through process.exit: the exit hooks run`, async () => {
      const c = child('');
      await c.ready;
      c.proc.kill(sig);
      const r = await c.done;
      expect(r).toMatchObject({ code: 130, signal: null });
      expect(r.out).toContain('marker removed');
    });
  }

  it("a client's handler (onInterrupt) keeps the first Ctrl-C: graceful, no exit; the second quits", async () => {
    const c = child("onInterrupt(false, () => console.log('graceful'));");
    await c.ready;
    c.proc.kill('SIGINT');
    await new Promise<void>((r) => c.proc.stdout?.on('data', (d: Buffer) => d.toString().includes('graceful') && r()));
    expect(c.proc.exitCode).toBe(null);
    c.proc.kill('SIGINT');
    const r = await c.done;
    expect(r).toMatchObject({ code: 130, signal: null });
    expect(r.out).toContain('marker removed');
  });
});
