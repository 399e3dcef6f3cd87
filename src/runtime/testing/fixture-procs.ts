// Test fixture actor (compiled: real workers load it): starts a real process group — `sleep 300` with a
// backgrounded grandchild `sleep 300 &` — registers it like run_bash does, then ends in the chosen way.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { defineActor } from '../actor.js';
import { trackProcessGroup } from '../process-groups.js';

export interface ProcsInput {
  /** wait: until stopped, leaving the group to the runtime; spin: for(;;) (only terminate ends it);
   *  crash: an uncaught error; oom: out of memory; return: run() returns while the group lives;
   *  signal_only: like run_bash on cancel, SIGTERM to the group and return without waiting for the exit. */
  end: 'wait' | 'spin' | 'crash' | 'oom' | 'return' | 'signal_only';
  /** Slot of the shared `pgids` buffer where the group id is published. */
  slot: number;
  /** A slot of `pgids` to wait on (until non-zero) before spawning: lets a test block its own thread first. */
  goSlot?: number;
  /** The group ignores SIGTERM (`trap '' TERM`): only SIGKILL ends it. */
  ignoreTerm?: boolean;
}

export default defineActor<ProcsInput, unknown>({
  kind: 'fixture-procs',
  async run(ctx, input) {
    const buf = ctx.shared.pgids;
    if (buf && input.goSlot !== undefined) {
      const view = new Int32Array(buf);
      while (Atomics.load(view, input.goSlot) === 0) Atomics.wait(view, input.goSlot, 0, 50);
    }
    const command = `${input.ignoreTerm === true ? "trap '' TERM; " : ''}sleep 300 & sleep 300`;
    const child = spawn('bash', ['-c', command], { detached: true, stdio: 'ignore' });
    const pgid = child.pid ?? -1;
    trackProcessGroup(pgid, once(child, 'exit'));
    if (buf) Atomics.store(new Int32Array(buf), input.slot, pgid);
    await new Promise((r) => setTimeout(r, 50)); // let bash start its background child
    switch (input.end) {
      case 'wait':
        await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
        return 'stopped';
      case 'spin':
        for (;;) {
          // only terminate() ends this worker
        }
      case 'crash':
        setTimeout(() => {
          throw new Error('crash with a process group');
        }, 5);
        return new Promise(() => undefined);
      case 'oom': {
        const hog: unknown[] = [];
        for (;;) hog.push(new Array(100_000).fill({ x: Math.random() }));
      }
      case 'return':
        return pgid;
      case 'signal_only':
        await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
        process.kill(-pgid, 'SIGTERM');
        return 'signalled';
    }
  },
});
