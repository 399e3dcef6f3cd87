// The codeseek actor: one worker under the services supervisor holding every workspace's code index; builds run as
// its named tasks, the cache goes through the store actor (the data root's one writer).
import { defineActor } from '../../runtime/actor.js';
import { CPU_SERVICE, type CpuService } from '../../runtime/cpu-service.js';
import { publishWarning } from '../../runtime/log-event.js';
import type { StoreApi } from '../../store/api.js';
import { STORE_ACTOR } from '../../store/client.js';
import type { CodeSeekApi } from './client.js';
import { CodeSeek } from './engine.js';

/** The served surface over an engine (also used in-process by `yagent mcp serve-code` and the tests). */
export function codeSeekFacade(cs: CodeSeek, settleMs = 1_000): CodeSeekApi {
  return {
    ask: (ws, q) => cs.ask(ws, q),
    warm: (ws) => cs.warm(ws),
    async imports(ws) {
      const files = await cs.files(ws, settleMs);
      return { status: await cs.status(ws), files };
    },
  };
}

export default defineActor<Record<string, never>, never>({
  kind: 'codeseek',
  serve(ctx) {
    const store = ctx.connect<StoreApi>(STORE_ACTOR);
    const cs = new CodeSeek({
      tasks: ctx.tasks,
      clock: ctx.clock,
      cache: { read: (key) => store.readCodeIndex(key), write: (key, data) => store.writeCodeIndex(key, data) },
      onError: (what, err) => publishWarning((e) => ctx.publish(e), 'codeseek', what, err),
      // a first build of many files parses on the runtime's CPU thread too (one thread on one core)
      cpu: ctx.connect<CpuService>(CPU_SERVICE),
    });
    return Promise.resolve(codeSeekFacade(cs));
  },
});
