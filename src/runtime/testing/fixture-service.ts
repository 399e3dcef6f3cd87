// Test fixture service actor: served methods for RPC tests (echo, hang, crash, slow).
import { defineActor } from '../actor.js';

export default defineActor<{ label?: string }, never>({
  kind: 'fixture-service',
  serve(ctx, input) {
    const starts = ctx.shared.starts ? Atomics.add(new Int32Array(ctx.shared.starts), 15, 1) : 0;
    return Promise.resolve({
      echo: (v: unknown) => ({ v, label: input.label ?? ctx.name, starts }),
      fail: () => {
        throw Object.assign(new Error('served failure'), { code: 'FIXTURE_FAIL' });
      },
      hang: () => new Promise(() => undefined),
      slow: (ms: number) => new Promise((r) => setTimeout(() => r(ms), ms)),
      die: () => {
        setTimeout(() => process.exit(7), 1);
        return 'dying';
      },
    });
  },
});
