// OTP-style supervisor: restart types, three strategies, intensity escalation, backoff, drain, snapshot.
import type { Clock } from './actor.js';
import type { ChildHandle, ChildSpec, ChildState, Exit, TreeNode } from './child.js';
import { validateChildSpec, validateLimits, SpecError, type Strategy, type SupervisorLimits } from './child-spec.js';
import { realClock, sleep } from './clock.js';
import { NamedTasks } from './tasks.js';

export type SupervisorEvent =
  | { type: 'child_started'; supervisor: string; child: string; restarts: number }
  | { type: 'child_exited'; supervisor: string; child: string; exit: Exit; restarting: boolean }
  | { type: 'escalated'; supervisor: string; child: string; restarts: number };

export interface SupervisorOptions {
  name: string;
  kind?: string;
  strategy?: Strategy;
  /** Max restarts within periodMs before giving up and escalating (OTP default: 1 in 5000 ms). */
  intensity?: number;
  periodMs?: number;
  backoff?: { initialMs: number; maxMs: number; jitter: number };
  clock?: Clock;
  random?: () => number;
  onEvent?: (e: SupervisorEvent) => void;
  /** Extra snapshot fields for this node (e.g. a task's mailbox depth and drops from the dispatcher). */
  describe?: () => { mailboxDepth?: number; drops?: number };
}

interface Child {
  spec: ChildSpec;
  dynamic: boolean;
  handle: ChildHandle | undefined;
  state: ChildState;
  gen: number;
  restarts: number;
  startedAt: number;
  waiters: ((exit: Exit) => void)[];
}

export class Supervisor implements ChildHandle {
  readonly name: string;
  readonly exited: Promise<Exit>;
  private resolveExit!: (e: Exit) => void;
  private readonly limits: SupervisorLimits;
  private readonly clock: Clock;
  private readonly random: () => number;
  private children: Child[] = [];
  private restartTimes: number[] = [];
  private ops: Promise<unknown> = Promise.resolve();
  private readonly bg: NamedTasks;
  private done: Exit | undefined;
  private readonly createdAt: number;

  private constructor(private readonly opts: SupervisorOptions) {
    this.name = opts.name;
    this.limits = validateLimits(opts.name, { strategy: opts.strategy, intensity: opts.intensity, periodMs: opts.periodMs, backoff: opts.backoff });
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
    this.bg = new NamedTasks({ clock: this.clock });
    this.createdAt = this.clock.now();
    this.exited = new Promise((r) => (this.resolveExit = r));
  }

  /** Validates every spec, then starts children in order; a failed start stops the started ones in reverse. */
  static async start(opts: SupervisorOptions, specs: ChildSpec[] = []): Promise<Supervisor> {
    const sup = new Supervisor(opts);
    const checked = specs.map((s) => validateChildSpec(s));
    sup.assertUnique(checked.map((s) => s.id));
    for (const spec of checked) {
      const child = sup.add(spec, false);
      try {
        await sup.launch(child);
      } catch (err) {
        await sup.stopAll('start_failed');
        throw err;
      }
    }
    return sup;
  }

  get strategy(): Strategy {
    return this.limits.strategy;
  }

  /** Adds and starts a dynamic child (a task, a delegation); rejects if its start fails.
   *  onFinal gets the exit after which no restart follows (registered before the child can exit). */
  startChild(spec: ChildSpec, onFinal?: (exit: Exit) => void): Promise<void> {
    const checked = validateChildSpec(spec);
    return this.serial(async () => {
      if (this.done) throw Object.assign(new Error(`${this.name} is stopped`), { code: 'SHUTTING_DOWN' });
      this.assertUnique([checked.id]);
      const child = this.add(checked, true);
      if (onFinal) child.waiters.push(onFinal);
      try {
        await this.launch(child);
      } catch (err) {
        this.remove(child);
        throw err;
      }
    });
  }

  /** Resolves with the child's final exit: the one after which no restart follows. */
  awaitChild(id: string): Promise<Exit> {
    const child = this.children.find((c) => c.spec.id === id);
    if (!child) return Promise.resolve({ normal: false, reason: 'noproc', error: { name: 'NotFound', message: `no child ${id}`, code: 'NOT_FOUND' } });
    return new Promise((r) => child.waiters.push(r));
  }

  terminateChild(id: string, reason = 'shutdown'): Promise<void> {
    // The stop request goes out at once, not behind the queue: a parent whose own stop is queued first waits for
    // this child (what it returns), so queueing this stop would hold both until the parent's grace ran out.
    // Its waiters (the spawn) get the exit as soon as it happens, and it leaves the tree; the queued stop below then
    // finds nothing left to do.
    const now = this.children.find((c) => c.spec.id === id);
    const h = now?.handle;
    if (now && h && now.state === 'running') {
      now.state = 'stopping';
      void h.stop(reason, now.spec.shutdownMs);
      void h.exited.then((exit) => {
        if (now.handle !== h) return;
        now.handle = undefined;
        now.state = 'stopped';
        this.remove(now);
        this.finish(now, exit);
      });
    }
    return this.serial(async () => {
      const child = this.children.find((c) => c.spec.id === id);
      if (!child) return;
      await this.stopChild(child, reason);
      this.remove(child);
    });
  }

  has(id: string): boolean {
    return this.children.some((c) => c.spec.id === id);
  }

  handleOf(id: string): ChildHandle | undefined {
    return this.children.find((c) => c.spec.id === id)?.handle;
  }

  async stop(reason = 'shutdown'): Promise<void> {
    await this.serial(() => this.stopAll(reason));
  }

  /** Stops everything (in reverse) and resolves to the names still running after timeoutMs. */
  async drain(timeoutMs: number): Promise<string[]> {
    const stopping = this.stop('shutdown');
    let timer: { cancel(): void } | undefined;
    const deadline = new Promise<void>((r) => (timer = this.clock.setTimeout(r, timeoutMs)));
    await Promise.race([stopping, deadline]);
    timer?.cancel();
    return this.liveNames();
  }

  /** Names (depth-first) of children whose worker or subtree has not exited yet. */
  liveNames(): string[] {
    const out: string[] = [];
    for (const c of this.children) {
      if (!c.handle) continue;
      // A supervisor with nothing live under it is not itself doing work worth naming.
      if (c.handle instanceof Supervisor) out.push(...c.handle.liveNames());
      else if (c.state !== 'stopped' && c.state !== 'failed') out.push(c.spec.id);
    }
    return out;
  }

  describe(): Partial<TreeNode> {
    const s = this.snapshot();
    return { kind: s.kind, mailboxDepth: s.mailboxDepth, drops: s.drops, children: s.children };
  }

  snapshot(): TreeNode {
    const now = this.clock.now();
    const extra = this.opts.describe?.() ?? {};
    return {
      name: this.name,
      kind: this.opts.kind ?? 'supervisor',
      state: this.done ? (this.done.normal ? 'stopped' : 'failed') : 'running',
      ageMs: now - this.createdAt,
      restarts: 0,
      mailboxDepth: extra.mailboxDepth ?? 0,
      drops: extra.drops ?? 0,
      children: this.children.map((c) => {
        const d = c.handle?.describe?.() ?? {};
        return {
          name: c.spec.id,
          kind: d.kind ?? c.spec.kind ?? 'worker',
          state: c.state,
          ageMs: now - c.startedAt,
          restarts: c.restarts,
          mailboxDepth: d.mailboxDepth ?? 0,
          drops: d.drops ?? 0,
          ...(d.paused === true ? { paused: true } : {}),
          children: d.children ?? [],
        };
      }),
    };
  }

  // ---- internals ----

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.ops.then(fn, fn);
    this.ops = run.catch(() => undefined); // the queue only orders: the caller gets run's failure
    return run;
  }

  private assertUnique(ids: string[]): void {
    const seen = new Set(this.children.map((c) => c.spec.id));
    for (const id of ids) {
      if (seen.has(id)) throw Object.assign(new SpecError(`${this.name}: duplicate child id ${id}`), { code: 'DUPLICATE_CHILD' });
      seen.add(id);
    }
  }

  private add(spec: ChildSpec, dynamic: boolean): Child {
    const child: Child = { spec, dynamic, handle: undefined, state: 'starting', gen: 0, restarts: 0, startedAt: this.clock.now(), waiters: [] };
    this.children.push(child);
    return child;
  }

  private remove(child: Child): void {
    this.children = this.children.filter((c) => c !== child);
  }

  private async launch(child: Child): Promise<void> {
    child.state = 'starting';
    const gen = ++child.gen;
    const handle = await child.spec.start();
    child.handle = handle;
    child.state = 'running';
    child.startedAt = this.clock.now();
    this.opts.onEvent?.({ type: 'child_started', supervisor: this.name, child: child.spec.id, restarts: child.restarts });
    void handle.exited.then((exit) => this.onExit(child, gen, exit));
  }

  private onExit(child: Child, gen: number, exit: Exit): void {
    // Exits we asked for (stopping, or a superseded generation) are handled by whoever asked.
    if (gen !== child.gen || child.state === 'stopping' || this.done) return;
    void this.serial(() => this.handleExit(child, exit));
  }

  private shouldRestart(child: Child, exit: Exit): boolean {
    switch (child.spec.restart) {
      case 'permanent':
        return true;
      case 'transient':
        return !exit.normal;
      case 'temporary':
        return false;
    }
  }

  private async handleExit(child: Child, exit: Exit): Promise<void> {
    if (!this.children.includes(child) || this.done) return;
    child.handle = undefined;
    const restarting = this.shouldRestart(child, exit);
    this.opts.onEvent?.({ type: 'child_exited', supervisor: this.name, child: child.spec.id, exit, restarting });
    if (!restarting) {
      child.state = exit.normal ? 'stopped' : 'failed';
      this.finish(child, exit);
      if (child.dynamic || child.spec.restart === 'temporary') this.remove(child);
      return;
    }
    if (this.overIntensity()) return this.escalate(child, exit);
    child.state = 'restarting';
    const group = this.restartGroup(child);
    // Siblings are stopped in reverse order; temporary ones are not restarted (OTP).
    for (const sib of [...group].reverse()) if (sib !== child) await this.stopChild(sib, 'shutdown');
    for (const sib of group) if (sib !== child && sib.spec.restart === 'temporary') this.remove(sib);
    await this.backoff();
    for (const c of group) {
      if (!this.children.includes(c) || this.done) continue;
      await this.relaunch(c, c === child ? exit : undefined);
    }
  }

  private async relaunch(child: Child, cause: Exit | undefined): Promise<void> {
    for (;;) {
      child.restarts++;
      try {
        await this.launch(child);
        return;
      } catch (err) {
        const exit: Exit = { normal: false, reason: `restart failed: ${err instanceof Error ? err.message : String(err)}` };
        this.opts.onEvent?.({ type: 'child_exited', supervisor: this.name, child: child.spec.id, exit, restarting: true });
        if (this.overIntensity()) return this.escalate(child, cause ?? exit);
        await this.backoff();
      }
    }
  }

  private restartGroup(child: Child): Child[] {
    switch (this.limits.strategy) {
      case 'one_for_one':
        return [child];
      case 'one_for_all':
        return [...this.children];
      case 'rest_for_one':
        return this.children.slice(this.children.indexOf(child));
    }
  }

  private overIntensity(): boolean {
    const now = this.clock.now();
    this.restartTimes = this.restartTimes.filter((t) => now - t < this.limits.periodMs);
    this.restartTimes.push(now);
    return this.restartTimes.length > this.limits.intensity;
  }

  private async backoff(): Promise<void> {
    const { initialMs, maxMs, jitter } = this.limits.backoff;
    const n = Math.max(0, this.restartTimes.length - 1);
    const base = Math.min(maxMs, initialMs * 2 ** n);
    const ms = Math.round(base * (1 + jitter * this.random()));
    if (ms > 0) await sleep(this.clock, ms);
  }

  /** Too many restarts: stop everything and exit abnormally so the parent decides. */
  private async escalate(child: Child, exit: Exit): Promise<void> {
    this.opts.onEvent?.({ type: 'escalated', supervisor: this.name, child: child.spec.id, restarts: this.restartTimes.length });
    child.state = 'failed';
    this.finish(child, exit);
    await this.stopAll('shutdown', { normal: false, reason: `reached_max_restart_intensity (${child.spec.id}: ${exit.reason})`, error: exit.error });
  }

  private async stopChild(child: Child, reason: string): Promise<void> {
    const h = child.handle;
    if (!h) return;
    child.state = 'stopping';
    await h.stop(reason, child.spec.shutdownMs);
    const exit = await h.exited;
    child.handle = undefined;
    child.state = 'stopped';
    this.finish(child, exit);
  }

  private finish(child: Child, exit: Exit): void {
    for (const w of child.waiters.splice(0)) w(exit);
  }

  private async stopAll(reason: string, as: Exit = { normal: true, reason }): Promise<void> {
    if (this.done) return;
    this.done = as;
    for (const c of [...this.children].reverse()) await this.stopChild(c, reason);
    for (const c of this.children) this.finish(c, { normal: true, reason: 'shutdown' });
    await this.bg.drain(100);
    this.resolveExit(as);
  }
}
