// The actor contract: what an actor module exports and what it can reach from inside its worker.
// The runtime (actor host) implements ActorContext; actor modules in src/store and src/actors use it.
import type { Event, EventOf } from './protocol/index.js';

export type RestartType = 'permanent' | 'transient' | 'temporary';

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

/** Named tasks inside one thread (the seeds' supervise.Go + Drain). */
export interface TaskGroup {
  /** Starts a named task; its error is caught and reported, never unhandled. */
  go(name: string, fn: (signal: AbortSignal) => Promise<void>): Promise<void>;
  /** Resolves to the names still running after timeoutMs (empty = all done). */
  drain(timeoutMs: number): Promise<string[]>;
  running(): string[];
}

/** Blocks at step boundaries without cancelling; freezes activity clocks while paused. */
export interface PauseGate {
  readonly paused: boolean;
  /** Resolves at once when running; otherwise when resumed. Rejects only if `signal` aborts. */
  wait(signal?: AbortSignal): Promise<void>;
}

export interface ResourceLimits {
  maxOldGenerationSizeMb?: number;
  maxYoungGenerationSizeMb?: number;
  stackSizeMb?: number;
}

export interface SpawnSpec<I = unknown> {
  /** Supervision-tree name, e.g. `delegation:<call_id>:repo`. */
  name: string;
  /** Actor module path relative to the package root's dist/, e.g. `src/actors/agents/repo-actor.js`. */
  module: string;
  input: I;
  /** Bound once for the child's whole life; stamped on every envelope it publishes. */
  delegationId?: string | null;
  shutdownMs?: number;
  resourceLimits?: ResourceLimits;
  restart?: RestartType;
}

/** Typed proxy of another actor's served methods. */
export type Remote<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

export interface ActorContext {
  readonly name: string;
  readonly kind: string;
  readonly taskId: string | null;
  readonly delegationId: string | null;
  /** Aborted when the supervisor asks this actor to stop (graceful; terminate follows after shutdownMs). */
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly tasks: TaskGroup;
  readonly pause: PauseGate;
  /** The pause a client gave one child of this actor on its own (`attach pause TASK CALL_ID`), by the child's name:
   *  the child's gate is in its worker, this mirror lets the parent's timers for it (a backstop) freeze too. */
  childPause(name: string): PauseGate;
  /** Publishes an event; lane from the type, batched per tick, normal lane drops with accounting. */
  publish(event: Event): void;
  /** Typed RPC to a served actor by name (e.g. 'store'); every call has a timeout and rejects on death. `open`: the
   *  port is brokered now (the caller's first call is imminent and should not wait a round trip), not on that call. */
  connect<T>(actorName: string, opts?: { open?: boolean }): Remote<T>;
  /** Starts a child actor under this actor's task supervisor; resolves with its run() result and
   *  rejects with a RemoteError (code ACTOR_CRASHED, ACTOR_TIMEOUT, ...) when it dies. */
  spawn<I, O>(spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O>;
  /** Critical-lane round trip: publishes `user_help_needed` and resolves with the matching
   *  `user_help_response` (paired by requestId) from whichever client answers; rejects with code
   *  NO_RESPONDER when the run is headless and nobody can answer, or when `signal` aborts. */
  requestUserHelp(
    request: Omit<EventOf<'user_help_needed'>, 'type' | 'requestId'>,
    signal?: AbortSignal,
  ): Promise<EventOf<'user_help_response'>>;
  /** Process-wide shared memory handed to every actor (e.g. the LLM in-flight gate). */
  readonly shared: Readonly<Record<string, SharedArrayBuffer>>;
}

export interface ActorModule<I = unknown, O = unknown> {
  kind: string;
  /** Task-like actors run to completion. */
  run?(ctx: ActorContext, input: I): Promise<O>;
  /** Service actors expose methods for RPC (`connect`). */
  serve?(ctx: ActorContext, input: I): Promise<object>;
  /** Graceful stop hook, called before the worker is told to exit. */
  stop?(ctx: ActorContext): Promise<void>;
}

export function defineActor<I, O>(module: ActorModule<I, O>): ActorModule<I, O> {
  return module;
}
