// The service broker: served actors by name, and ports to them for whoever connects, waiting while one (re)starts.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { Clock } from './actor.js';
import type { ActorHandle } from './actor-host.js';
import { runtimeError } from './rpc.js';

export class ServiceBroker {
  private readonly served = new Map<string, ActorHandle>();
  /** Brokers waiting for a served actor to (re)appear, woken when it registers. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Services started by their first connect (once each): a worker nobody asks for is never booted. */
  private readonly demand = new Map<string, () => void>();

  constructor(
    private readonly clock: Clock,
    private readonly waitMs: number,
  ) {}

  /** A served actor is up: connects to it go through from now on (until its worker exits). */
  register(h: ActorHandle): void {
    this.served.set(h.name, h);
    this.demand.delete(h.name); // started (on demand or not): a later absence is a restart or a stop, never a first use
    for (const wake of this.waiters.get(h.name) ?? []) wake();
    void h.exited.then(() => this.served.get(h.name) === h && this.served.delete(h.name));
  }

  /** `start` runs at the first connect to `name` that finds it not served (then the connect waits as for any start). */
  onDemand(name: string, start: () => void): void {
    this.demand.set(name, start);
  }

  /** A worker↔worker (or main↔worker) channel to a served actor, waiting while it (re)starts. */
  async port(target: string): Promise<MessagePort> {
    const deadline = this.clock.now() + this.waitMs;
    const start = this.served.has(target) ? undefined : this.demand.get(target);
    if (start) {
      this.demand.delete(target);
      start();
    }
    for (;;) {
      const h = this.served.get(target);
      if (h) {
        const { port1, port2 } = new MessageChannel();
        h.accept(port1);
        return port2;
      }
      const left = deadline - this.clock.now();
      if (left <= 0) throw runtimeError('NOT_FOUND', `no served actor named ${target}`);
      await this.appears(target, left);
    }
  }

  /** Resolves when a served actor named target registers, or after ms (the caller re-checks). */
  private appears(target: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(target) ?? new Set<() => void>();
      this.waiters.set(target, set);
      const wake = (): void => {
        timer.cancel();
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(target);
        resolve();
      };
      const timer = this.clock.setTimeout(wake, ms);
      set.add(wake);
    });
  }
}
