// Test fixture actor (compiled: real workers load it): starts a real browser through the Browser agent's driver,
// publishes its process group in the shared `pgids` buffer, then ends the way the test asks. Whatever ends the
// worker, the runtime's process-group registry must end the browser (test/browser/worker.test.ts).
import { defineActor } from '../../../runtime/actor.js';
import { defaultBoundary } from '../../tools/boundary.js';
import { BrowserSession } from '../session.js';

export interface FixtureBrowserInput {
  executable: string;
  /** Slot of the shared `pgids` buffer where the browser's process group is published. */
  slot: number;
  /** spin: for(;;) (only terminate() ends the worker); crash: an uncaught error; wait: until stopped, no close(). */
  end: 'spin' | 'crash' | 'wait';
  workspace: string;
}

export default defineActor<FixtureBrowserInput, unknown>({
  kind: 'fixture-browser',
  async run(ctx, input) {
    // a run signal that never fires: the worker's end, not the session, must take the browser down
    const session = new BrowserSession({
      availability: { ok: true, executable: input.executable },
      env: { PATH: process.env.PATH ?? '' },
      boundary: defaultBoundary(input.workspace),
      runSignal: new AbortController().signal,
    });
    await session.snapshot({ signal: new AbortController().signal, timeoutMs: 30_000 });
    const buf = ctx.shared.pgids;
    if (buf) Atomics.store(new Int32Array(buf), input.slot, session.pid ?? -1);
    switch (input.end) {
      case 'spin':
        for (;;) {
          // only terminate() ends this worker
        }
      case 'crash':
        setTimeout(() => {
          throw new Error('crash with a browser running');
        }, 5);
        return new Promise(() => undefined);
      case 'wait':
        await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
        return 'stopped';
    }
  },
});
