// What the CLI boots first and with which preload: shared by main.ts (prestart) and the runtime adapter.
import { AGENT_MODULE, AGENT_THREAD } from '../../src/actors/agents/agent-module.js';
import { DELEGATE_TARGETS, resolveDisabledAgents } from '../../src/actors/agents/profiles.js';
import type { ResourceLimits } from '../../src/runtime/actor.js';
import type { YagentConfig } from '../../src/runtime/config/types.js';
import { prestart, type ThreadBundle } from '../../src/runtime/spare-boot.js';
import { STORE_MODULE, STORE_THREAD } from '../../src/store/store-module.js';
import type { Command } from '../cli/args.js';
import { trace } from './trace.js';

/** The agent actor's path under dist/ (a leaf module: naming it loads nothing else). */
export const AGENT_ACTOR_MODULE = AGENT_MODULE;

/** The CLI's actor threads start from their code-cached bundles (every runtime and prestart of the CLI passes these). */
export const THREADS: readonly ThreadBundle[] = [AGENT_THREAD, STORE_THREAD];

/** One spare that preloads the agent actor itself: the Director starts on it with nothing left to import. */
export const SPARE_PLAN = { preload: [AGENT_ACTOR_MODULE], count: 1 } as const;

/** Every worker the CLI starts (spares, services, delegations): the young generation capped at 3 MB (1 MB
 *  semi-spaces). Uncapped, V8 grew each agent and store thread's to 7-11 MB; capped, a 20-step run's peak RSS fell
 *  ~14 MB with no more CPU before the first request and no slower step (bench/AGENTS.md, issue 29). */
export const WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 3 };

/** How far below the main thread the agent, store and MCP workers run when the TUI draws in this process (Linux nice,
 *  per thread: `src/runtime/thread-priority.ts`): the screen outranks agent compute. The scheduler gives a nice-10 thread
 *  about a ninth of a nice-0 one's share when both want a core (`nice`'s own default; at 5, a third, the main thread
 *  waited for a core 2-4x longer around a first token: bench/AGENTS.md). Headless runs keep every thread at the
 *  process's priority.
 *  The commands a tool runs inherit it (a child takes its thread's nice): `YAGENT_SCREEN_NICE=0` keeps them all at
 *  the terminal's priority. */
export const SCREEN_NICE = screenNice(process.env.YAGENT_SCREEN_NICE);

/** `YAGENT_SCREEN_NICE`: 0-19, else the default 10. */
export function screenNice(value: string | undefined): number {
  const n = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : 10;
}

/** The store service's worker preloads its module (the runtime adapter starts the store with this preload). */
export const STORE_PRELOAD = [STORE_MODULE];

const SDK_OF = { openai: 'openai', anthropic: '@anthropic-ai/sdk' } as const;

/** Spares for delegations (booted once the config is known): the agent actor plus only the SDKs the
 *  configured providers speak, so a worker that needs one SDK does not load both. */
export function delegationPreload(config: Pick<YagentConfig, 'providers'>): string[] {
  const sdks = new Set(Object.values(config.providers).map((p) => SDK_OF[p.apiFormat]));
  return [AGENT_ACTOR_MODULE, ...[...sdks].sort()];
}

let prestarted = false;
/** Settles once the prestarted Director's worker is ready (or failed); at once when nothing was prestarted or the
 *  store's worker was prestarted too (its turn reads the store first). */
let directorBooted: Promise<void> = Promise.resolve();
/** The store's worker was prestarted (the turn reads the store first). */
let storeFirst = false;

/** A turn that continues a session reads the store before its Director starts (`prepareTurn`: the session, its last
 *  rollout's replay): for it the store's worker boots early too. */
export function readsStoreFirst(cmd: Command): boolean {
  return cmd.kind === 'headless' && cmd.session !== undefined;
}

/** Called first thing by commands that run tasks locally (by the launcher already, bin/host/early-boot.ts): the
 *  Director's worker boots while the main thread is still loading the CLI, the config and the runtime. Once per
 *  process. The store's worker is prestarted only for a turn that reads it first (`readsStoreFirst`): a new task's
 *  Director sends its first request without any store answer (its rollout's opening is pipelined, its board needs no
 *  index), so there the store boots once the Director's worker is ready (`storeBootAfter`) and leaves the two cores
 *  to the Director's boot and the CLI's (A/B in bench/AGENTS.md). `screen`: the TUI will draw in this process, so
 *  they boot below it (`SCREEN_NICE`, as its runtime's workers do: a spare is adopted only with the same priority). */
export function prestartDirector(withStore = false, screen = false): void {
  if (prestarted) return;
  prestarted = true;
  const nice = screen ? SCREEN_NICE : 0;
  const director = prestart({ preload: SPARE_PLAN.preload, count: SPARE_PLAN.count, threads: THREADS, resourceLimits: WORKER_LIMITS, nice });
  storeFirst = withStore;
  if (withStore) prestart({ preload: STORE_PRELOAD, count: 1, threads: THREADS, resourceLimits: WORKER_LIMITS, nice });
  else directorBooted = Promise.all(director.map((b) => b.ready.catch(() => undefined))).then(() => undefined);
  trace(`workers prestarted (${withStore ? 'Director, store' : 'Director'})`);
}

/** False when -d disables every delegation target (a single-agent run): no delegation spare is worth booting. */
export function canDelegate(disabledAgents: readonly string[]): boolean {
  try {
    return resolveDisabledAgents(disabledAgents).length < DELEGATE_TARGETS.length;
  } catch {
    return true; // an unknown name fails the run itself, with its own message
  }
}

/** When the store's worker may start booting (`openRuntimeAdapter`): after the prestarted Director's worker is ready,
 *  so the two boots do not share the cores the first model request waits on (the Director's first request needs no
 *  store answer; whoever calls the store waits until it serves). */
export function storeBootAfter(): Promise<void> {
  return directorBooted;
}

/** Whether a host that asks nobody (-p, batch, demo) may boot its store only once the first model call is under way:
 *  the Director's worker was prestarted for a new task (no store answer before its first request), so the store's
 *  boot (~35-45 ms of CPU, a third thread on two cores) stays out of the Director's start → first request. */
export function storeAfterFirstCall(): boolean {
  return prestarted && !storeFirst;
}

