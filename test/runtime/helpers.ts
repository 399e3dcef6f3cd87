// Shared helpers for runtime tests: a runtime on real workers (no heavy preload) and a poll-until.
import { Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';

export const FIXTURE = 'src/runtime/testing/fixture-actor.js';
export const SERVICE = 'src/runtime/testing/fixture-service.js';

export interface TestRuntime {
  rt: Runtime;
  starts: Int32Array;
}

export async function startRuntime(opts: RuntimeOptions = {}): Promise<TestRuntime> {
  const buf = new SharedArrayBuffer(16 * 4);
  const rt = await Runtime.start({
    preload: [],
    hasResponder: true,
    supervision: { intensity: 5, periodMs: 5000, backoff: { initialMs: 0, maxMs: 0, jitter: 0 } },
    dispatcher: { onWarn: () => undefined },
    ...opts,
    shared: { starts: buf, ...opts.shared },
  });
  return { rt, starts: new Int32Array(buf) };
}

/** Polls a condition of real I/O (worker starts, exits) with a hard deadline. */
export async function until(cond: () => boolean, timeoutMs = 20_000, label = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function codeOf(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}

/** The error a promise rejects with; fails the test if it resolves instead. */
export function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e as Error & { code?: string },
  );
}
