// The code index's worker (the codeseek service) in the CLI: booted once a model call is under way (never before the
// first request) for a turn whose workspace may hold code, which it then indexes in the background; any other run
// boots it at the first connect to it (a codeseek_* call), so a workspace with nothing to index never pays its ~20 MB.
import { CODESEEK_ACTOR, codeseekServiceSpec, type CodeSeekApi } from '../../src/actors/codeseek/client.js';
import { mayHoldCode } from '../../src/actors/codeseek/presence.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { trace } from './trace.js';

export interface CodeIndexWarmer {
  /** A turn in `workspace` starts: indexed from its next model call on if it may hold code. */
  add(workspace: string): void;
}

export function wireCodeIndex(runtime: Runtime): CodeIndexWarmer {
  let ready: Promise<void> | null = null;
  const start = (): Promise<void> => (ready ??= runtime.startService(codeseekServiceSpec()));
  let underway = (): void => undefined;
  const firstCall = new Promise<void>((r) => (underway = r));
  // a first use before any model call (a blueprint of code) waits until one is under way, like the warm-up below
  runtime.onDemand(CODESEEK_ACTOR, () => {
    runtime.tasks.go('codeseek-start', async (signal) => {
      // a shutdown before any model call ends the wait without a start (the connect then fails as for a stopped service)
      const stopped = new Promise<boolean>((r) => signal.addEventListener('abort', () => r(true), { once: true }));
      if (!(await Promise.race([firstCall.then(() => false), stopped]))) await start();
    });
  });
  const pending = new Set<string>();
  const warmer = runtime.dispatcher.consume({ name: 'codeseek-warmer', filter: { types: ['ai_stream_start', 'llm_call_start'] } }, () => {
    underway();
    if (pending.size === 0) return;
    const spaces = [...pending];
    pending.clear();
    return runtime.tasks.go('codeseek-warm', async () => {
      const coded: string[] = [];
      for (const ws of spaces) if (await mayHoldCode(ws)) coded.push(ws);
      if (coded.length === 0) {
        trace('no file to index in the workspace: the code index boots at its first use');
        return;
      }
      await start();
      const code = runtime.connect<CodeSeekApi>(CODESEEK_ACTOR);
      for (const ws of coded) await code.warm(ws);
    });
  });
  return {
    add: (workspace) => {
      if (!warmer.mailbox.closed) pending.add(workspace);
    },
  };
}
