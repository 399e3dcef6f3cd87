// A host whose task output waits for the start-up notice: the task itself starts at once (the sandbox probe is a
// bwrap run, 5–60 ms on a busy machine, that the first model request need not wait for).
import type { Envelope } from '../../src/runtime/protocol/index.js';
import type { Host } from './types.js';

/** `host` with its events held (in order) and every task's end delayed until the notice is printed. `notice` prints it
 *  (the sandbox probe): it begins on the turn after the first task starts, once the Director's start message is on its
 *  way, so the probe's spawn is not on the main thread's path to it. */
export function noticeFirst(host: Host, notice: () => Promise<void>): Host {
  let open = false;
  let begin = (): void => undefined;
  const printed = new Promise<void>((resolve) => (begin = () => resolve(notice())));
  let begun = false;
  const settled = (): void => void (open = true);
  printed.then(settled, settled);
  const subscribe: Host['subscribe'] = (filter, onEnvelope) => {
    if (open) return host.subscribe(filter, onEnvelope);
    const held: Envelope[] = [];
    let live = false;
    let closed = false;
    const off = host.subscribe(filter, (env) => (live ? onEnvelope(env) : void held.push(env)));
    const flush = (): void => {
      live = true;
      for (const env of held.splice(0)) if (!closed) onEnvelope(env);
    };
    printed.then(flush, flush);
    return () => {
      closed = true;
      off();
    };
  };
  const startTask: Host['startTask'] = (spec) => {
    const started = host.startTask(spec);
    if (!begun) {
      begun = true;
      setImmediate(begin);
    }
    return { taskId: started.taskId, done: started.done.then(async (outcome) => (await printed, outcome)) };
  };
  return new Proxy(host, {
    get(target, key) {
      if (key === 'subscribe') return subscribe;
      if (key === 'startTask') return startTask;
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
