// The runtime facade's option and handle types (runtime.ts re-exports them).
import type { Clock, ResourceLimits, RestartType, SpawnSpec } from './actor.js';
import type { DispatcherOptions } from './dispatcher.js';
import type { PauseController } from './pause.js';
import type { ThreadBundle } from './spare-boot.js';
import type { Supervisor, SupervisorEvent } from './supervisor.js';

export interface RuntimeOptions {
  /** Modules every actor worker imports while it waits as a spare (default zod, openai, @anthropic-ai/sdk);
   *  package names or module paths under dist/ (`src/….js`, e.g. the agent actor itself). */
  preload?: string[];
  /** Spares booted at start (in the background: start() does not wait for them; warm() does). */
  spares?: number;
  /** True: taking a spare does not boot its replacement until the next warm() (a latency-critical first start). */
  deferRefill?: boolean;
  creditWindow?: number;
  rpcTimeoutMs?: number;
  /** How long a connect waits for a served actor that is (re)starting. */
  connectWaitMs?: number;
  shared?: Record<string, SharedArrayBuffer>;
  resourceLimits?: ResourceLimits;
  /** Thread bundles (code-cached CommonJS builds of an actor's thread); a spawn whose preload one serves boots it. */
  threads?: readonly ThreadBundle[];
  /** False for headless runs: requestUserHelp rejects with NO_RESPONDER. */
  hasResponder?: boolean;
  dispatcher?: DispatcherOptions;
  /** Defaults for the task supervisors (OTP default intensity 1 in 5000 ms). */
  supervision?: { intensity?: number; periodMs?: number; backoff?: { initialMs: number; maxMs: number; jitter: number } };
  clock?: Clock;
  random?: () => number;
  onSupervisorEvent?: (e: SupervisorEvent) => void;
}

export interface ServiceSpec<I = unknown> {
  name: string;
  module: string;
  input?: I;
  restart?: RestartType;
  shutdownMs?: number;
  resourceLimits?: ResourceLimits;
  /** Its own preload (e.g. [] for a service that needs no SDK): a fresh worker booted at once, not a spare. */
  preload?: string[];
  /** Its own restart budget: it runs under a supervisor of its own (temporary under `services`), so a crash loop
   *  of it ends with it down instead of escalating and restarting its siblings (the store). */
  isolate?: { intensity: number; periodMs: number };
}

export interface TaskHandle {
  readonly id: string;
  readonly supervisor: Supervisor;
  readonly pause: PauseController;
  spawn<I, O>(spec: SpawnSpec<I>, signal?: AbortSignal): Promise<O>;
}
