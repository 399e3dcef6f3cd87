// Process groups started by actors (run_bash, later MCP stdio servers): registered with the main thread,
// which kills every group an actor leaves behind when its worker exits for ANY reason, and whatever is
// left when the process exits. Inside a worker the registration travels on the control channel.

import { childGroupLeadersSync } from './child-groups.js';

/** How long a group gets between SIGTERM and SIGKILL when its owner is gone. */
export const GROUP_KILL_GRACE_MS = 1000;

export type GroupOp = 'register' | 'unregister';

function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false; // ESRCH: no process left in the group
  }
}

/** True while any process (a zombie included) is still in the group. */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/** Key of the shared group table in every worker's `shared` record. */
export const GROUP_TABLE_KEY = 'yagent.processGroups';
const GROUP_SLOTS = 1024;
let tableBuf: SharedArrayBuffer | undefined;
let table: Int32Array | undefined;

/** Main thread: the table every worker writes its groups into at once (Atomics). The exit hook reads it
 *  synchronously, so a group registered a moment before a hard exit (its control message still queued) dies too. */
export function groupTableBuffer(): SharedArrayBuffer {
  if (!tableBuf) attachGroupTable(new SharedArrayBuffer(GROUP_SLOTS * 4));
  return tableBuf as SharedArrayBuffer;
}

/** Worker: uses the table the main thread handed over in the start message. */
export function attachGroupTable(buf: SharedArrayBuffer | undefined): void {
  if (!buf || buf === tableBuf) return;
  tableBuf = buf;
  table = new Int32Array(buf);
}

function tableAdd(pgid: number): void {
  if (!table) return;
  for (let i = 0; i < table.length; i++) if (Atomics.compareExchange(table, i, 0, pgid) === 0) return;
}

function tableRemove(pgid: number): void {
  if (!table) return;
  for (let i = 0; i < table.length; i++) if (Atomics.compareExchange(table, i, pgid, 0) === pgid) return;
}

function tableGroups(): number[] {
  return table ? [...table].filter((pgid) => pgid > 1) : [];
}

/** Main-thread registry: owner (an actor worker, or 'main') → its live process groups. */
export class ProcessGroupRegistry {
  private readonly owners = new Map<string, Set<number>>();
  /** The watchdog's feed (watchdog.ts): every group added or removed here. */
  private watcher: ((op: GroupOp, pgid: number) => void) | undefined;

  /** Installs the feed; it is first told every group registered so far (a watchdog may start after some). */
  watch(fn: ((op: GroupOp, pgid: number) => void) | undefined): void {
    this.watcher = fn;
    if (fn) for (const set of this.owners.values()) for (const pgid of set) fn('register', pgid);
  }

  /** withTable: the process's own registry, which also kills what workers wrote into the shared table. */
  constructor(private readonly withTable = false) {}

  add(owner: string, pgid: number): void {
    if (!Number.isInteger(pgid) || pgid <= 1) return; // never signal -1 or -0: that is every process we may signal
    let set = this.owners.get(owner);
    if (!set) this.owners.set(owner, (set = new Set()));
    set.add(pgid);
    this.watcher?.('register', pgid);
  }

  remove(owner: string, pgid: number): void {
    const set = this.owners.get(owner);
    if (set?.delete(pgid) === true) this.watcher?.('unregister', pgid);
    if (set?.size === 0) this.owners.delete(owner);
  }

  groups(owner?: string): number[] {
    if (owner !== undefined) return [...(this.owners.get(owner) ?? [])];
    return [...this.owners.values()].flatMap((s) => [...s]);
  }

  /** SIGTERM to every group of `owner` now, SIGKILL to the survivors after `graceMs`; entries stay until then
   *  so a process exit in between still kills them (killAllSync). The timer never keeps the process alive. */
  killOwner(owner: string, graceMs = GROUP_KILL_GRACE_MS): void {
    const pgids = this.groups(owner);
    if (pgids.length === 0) return;
    for (const pgid of pgids) {
      if (signalGroup(pgid, 'SIGTERM')) continue;
      this.remove(owner, pgid);
      tableRemove(pgid);
    }
    const timer = setTimeout(() => {
      for (const pgid of pgids) {
        signalGroup(pgid, 'SIGKILL');
        this.remove(owner, pgid);
        tableRemove(pgid);
      }
    }, graceMs);
    timer.unref();
  }

  /** Last resort on process exit (synchronous): SIGKILL to every group still registered, here or in the table. */
  killAllSync(): number[] {
    // the process's own registry also kills the groups its children lead (a group the registry missed)
    const all = new Set([...this.groups(), ...(this.withTable ? [...tableGroups(), ...childGroupLeadersSync()] : [])]);
    const killed = [...all].filter((pgid) => signalGroup(pgid, 'SIGKILL'));
    this.owners.clear();
    if (this.withTable) for (const pgid of all) tableRemove(pgid);
    return killed;
  }
}

/** The registry of this process's main thread (in a worker it stays empty: registrations go to the sink). */
export const processGroups = new ProcessGroupRegistry(true);

export const MAIN_OWNER = 'main';

type Sink = (op: GroupOp, pgid: number) => void;
let sink: Sink | undefined;
/** Groups of this thread whose direct child is not reaped yet, with the promise of that reap. A worker
 *  ends them and waits before it reports stopped or done, so libuv reaps the child (a child whose thread
 *  is gone is never reaped: a zombie until the process exits). */
const unreaped = new Map<number, Promise<void>>();

/** Called once by the actor worker: registrations go to the main thread over the control port. */
export function setProcessGroupSink(s: Sink | undefined): void {
  sink = s;
}

/**
 * Registers a process group this thread started; `exited` settles when its direct child is reaped.
 * Returns the release: call it once the group is known to be empty (a group still alive stays
 * registered and dies with its owner).
 */
export function trackProcessGroup(pgid: number, exited: Promise<unknown>): () => void {
  const reaped = exited.then(
    () => undefined,
    () => undefined,
  );
  unreaped.set(pgid, reaped);
  void reaped.then(() => unreaped.get(pgid) === reaped && unreaped.delete(pgid));
  tableAdd(pgid);
  if (sink) sink('register', pgid);
  else processGroups.add(MAIN_OWNER, pgid);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    tableRemove(pgid);
    if (sink) sink('unregister', pgid);
    else processGroups.remove(MAIN_OWNER, pgid);
  };
}

/** Share of the budget a group gets after SIGTERM before it is sent SIGKILL (the rest is for the reap). */
const TERM_SHARE = 0.6;

/** SIGTERM to every group of this thread whose direct child still runs, SIGKILL to what is left after most of
 *  `maxMs` (a command may ignore SIGTERM: `trap '' TERM`), and waits (at most `maxMs` in all) until those children
 *  are reaped. Only this thread can reap them: a child whose thread is gone stays a zombie until the process exits.
 *  What survives is killed by the main thread when the worker exits. */
export async function endUnreapedChildren(maxMs: number): Promise<void> {
  if (unreaped.size === 0) return;
  const budget = Math.max(0, maxMs);
  for (const pgid of unreaped.keys()) signalGroup(pgid, 'SIGTERM');
  if (await reapedWithin(Math.floor(budget * TERM_SHARE))) return;
  for (const pgid of unreaped.keys()) signalGroup(pgid, 'SIGKILL');
  await reapedWithin(budget - Math.floor(budget * TERM_SHARE));
}

/** True once every unreaped child of this thread is reaped, false when `ms` ran out first. */
async function reapedWithin(ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  const all = Promise.all([...unreaped.values()]).then(() => true as const);
  const done = await Promise.race([all, bound]);
  clearTimeout(timer);
  return done;
}
