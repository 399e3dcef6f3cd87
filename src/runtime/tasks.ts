// Named tasks inside one thread (the seeds' supervise.Go + Drain): named, errors caught, awaitable, drainable.
import type { Clock, TaskGroup } from './actor.js';
import { realClock } from './clock.js';
import { childController } from './abort-chain.js';

export interface TaskGroupOptions {
  /** Called with every task error (never thrown, never unhandled). */
  onError?: (name: string, err: unknown) => void;
  /** Aborting this aborts every task's signal. */
  signal?: AbortSignal;
  clock?: Clock;
}

interface Running {
  name: string;
  done: Promise<void>;
}

export class NamedTasks implements TaskGroup {
  private readonly live = new Map<number, Running>();
  private nextId = 0;
  private readonly ctl: AbortController;
  private readonly clock: Clock;
  private readonly errors: { name: string; error: unknown }[] = [];

  constructor(private readonly opts: TaskGroupOptions = {}) {
    this.ctl = childController(opts.signal);
    this.clock = opts.clock ?? realClock;
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  go(name: string, fn: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const id = this.nextId++;
    const entry: Running = { name, done: Promise.resolve() };
    // Registered before the body runs so a synchronous throw still unregisters cleanly.
    this.live.set(id, entry);
    entry.done = (async () => {
      try {
        await fn(this.ctl.signal);
      } catch (err) {
        this.errors.push({ name, error: err });
        if (this.errors.length > 100) this.errors.shift();
        this.opts.onError?.(name, err);
      } finally {
        this.live.delete(id);
      }
    })();
    return entry.done;
  }

  running(): string[] {
    return [...this.live.values()].map((r) => r.name);
  }

  /** Recent task errors (bounded), for snapshots and tests. */
  failures(): readonly { name: string; error: unknown }[] {
    return this.errors;
  }

  /** Aborts every task's signal, waits up to timeoutMs, and resolves to the names still running. */
  async drain(timeoutMs: number): Promise<string[]> {
    this.ctl.abort(Object.assign(new Error('draining'), { name: 'AbortError' }));
    return this.waitAll(timeoutMs);
  }

  /** Waits up to timeoutMs without cancelling anything; resolves to the names still running. */
  async waitAll(timeoutMs: number): Promise<string[]> {
    const all = Promise.all([...this.live.values()].map((r) => r.done)).then(() => undefined);
    let timer: { cancel(): void } | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = this.clock.setTimeout(resolve, timeoutMs);
    });
    await Promise.race([all, timeout]);
    timer?.cancel();
    return this.running();
  }
}

export function createTaskGroup(opts?: TaskGroupOptions): NamedTasks {
  return new NamedTasks(opts);
}
