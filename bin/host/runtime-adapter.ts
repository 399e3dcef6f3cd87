// The one file that adapts the runtime facade, the store actor and the agents' runTask to LocalHost.
import { Runtime } from '../../src/runtime/runtime.js';
import { createSharedLlmState, LLM_SHARED_KEY } from '../../src/runtime/config/llm-shared.js';
import type { YagentConfig } from '../../src/runtime/config/types.js';
import { serializeError } from '../../src/runtime/protocol/index.js';
import type { StoreApi } from '../../src/store/api.js';
import { STORE_ACTOR, STORE_MODULE, TASK_INBOX_SHARED_KEY, bumpInbox, createInboxSignal, storeInputFromConfig } from '../../src/store/client.js';
import { SCREEN_NICE, SPARE_PLAN, STORE_PRELOAD, THREADS, WORKER_LIMITS, canDelegate, delegationPreload, storeAfterFirstCall, storeBootAfter } from './boot-plan.js';
import { claimNewTaskId } from './ids.js';
import { dropPresend, presendShared } from './presend.js';
import { trace } from './trace.js';
import { createMcpShared, MCP_SHARED_KEY, mcpInputFromConfig, mcpServiceSpec } from '../../src/actors/mcp/client.js';
import { wireCodeIndex } from './code-index.js';
import { estimateCost } from '../../src/actors/llm/catalogue/prices.js';
import { startLogSink } from './log-sink.js';
import { checkChoice, modelChoices } from './model-choices.js';
import { loadConfig } from '../../src/runtime/config/index.js';
import type { SupervisorOps, TaskOutcome, TaskSpec } from './types.js';
import { CliError, EXIT } from '../cli/exit-codes.js';
import { dataRoot } from '../cli/home.js';
import { emptyOutcome } from './empty-outcome.js';
import { WorktreeBook } from './worktrees.js';

export interface RuntimeAdapter extends SupervisorOps {
  /** One turn, with its status changes in the task's timeline (started, then done, failed or cancelled). */
  runTask(spec: TaskSpec, taskId: string, signal: AbortSignal): Promise<TaskOutcome>;
  /** The turn itself. */
  runTurn(spec: TaskSpec, taskId: string, signal: AbortSignal): Promise<TaskOutcome>;
  /** Test-only (the scripted model's crash fault): ends the named actors' workers with no stop hook. */
  crashActors(name: string): number;
}

export interface AdapterOptions {
  config: YagentConfig;
  configPath: string | undefined;
  canAsk: boolean;
  /** Where a log sink failure is said once, and (`--verbose`) warn+ log lines are mirrored: stderr. */
  stderr?: ((s: string) => void) | undefined;
  verbose?: boolean | undefined;
  /** A UI draws in this process (the TUI): workers run below its main thread (boot-plan `SCREEN_NICE`). */
  screen?: boolean | undefined;
}

/** The run's last writes failed: one stderr report and exit 1, whatever the task's own outcome was. */
function durabilityError(failures: string[]): CliError {
  return new CliError(`durability error: ${failures.join('; ')}`, EXIT.error, dataRoot(), 'check free space and permissions of the data root: the last records of this run may be missing');
}

let subscribers = 0;

/** The latest a store waiting for the first model call boots after the Director's worker is ready (a backstop: a
 *  Director that needed a store answer before its first request would otherwise wait for ever). */
const STORE_LATEST_MS = 1000;

/** Resolves after `ms`; its timer keeps no process alive. */
function latest(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Start-up order for the first model request: Director spare (agent graph preloaded, maybe prestarted) and
 *  a light store worker boot in parallel; the spare for delegations boots once a model call is under way. */
/** The process's task-inbox signal (shared with every actor through ctx.shared; bumped after each post). */
const inboxSignal = createInboxSignal();

export function startRuntime(canAsk: boolean, config: Pick<YagentConfig, 'llm'>, sweepOrphansAfter?: Promise<unknown>, watchdogAfter?: Promise<unknown>, screen = false): Promise<Runtime> {
  // one buffer for the process: max_in_flight_requests and the circuit breakers hold across every agent worker
  // presendShared: the Director's first request when this thread sent it already (presend.ts)
  const shared = { [LLM_SHARED_KEY]: createSharedLlmState({ maxInFlightRequests: config.llm.maxInFlightRequests }), [MCP_SHARED_KEY]: createMcpShared(), [TASK_INBOX_SHARED_KEY]: inboxSignal, ...presendShared() };
  // guardOrphans: no process of ours outlives this one, however it dies (kill -9, OOM: watchdog.ts)
  return Runtime.start({ hasResponder: canAsk, preload: [...SPARE_PLAN.preload], spares: SPARE_PLAN.count, deferRefill: true, shared, threads: THREADS, resourceLimits: WORKER_LIMITS, guardOrphans: true, ...(sweepOrphansAfter ? { sweepOrphansAfter } : {}), ...(watchdogAfter ? { watchdogAfter } : {}), ...(screen ? { workerNice: SCREEN_NICE } : {}) });
}

/** The loaded config, or the file re-read when it names a provider the loaded one does not have. */
async function configNaming(opts: AdapterOptions, provider: string | undefined): Promise<YagentConfig> {
  if (provider === undefined || provider in opts.config.providers) return opts.config;
  return loadConfig({ ...(opts.configPath !== undefined ? { configPath: opts.configPath } : {}), validate: false }).then((r) => r.config, () => opts.config);
}

export async function openRuntimeAdapter(opts: AdapterOptions): Promise<RuntimeAdapter> {
  // the sweep of an earlier yagent's orphans reads every process's environ: a run's waits for its first model call,
  // a host that asks (serve, TUI: no task may come for a while) sweeps at once
  let callUnderWay = (): void => undefined;
  const firstCall = new Promise<void>((resolve) => (callUnderWay = resolve));
  // its watchdog (a /bin/sh spawn) once the first task's start is on its way (a host that asks starts it at once)
  let taskStarted = (): void => undefined;
  const firstTask = new Promise<void>((resolve) => (taskStarted = resolve));
  const runtime = await startRuntime(opts.canAsk, opts.config, opts.canAsk ? undefined : firstCall, opts.canAsk ? undefined : firstTask, opts.screen === true);
  let called = false;
  const sweepGate = runtime.dispatcher.consume({ name: 'orphan-sweep-gate', filter: { types: ['ai_stream_start', 'llm_call_start'] } }, () => {
    sweepGate.mailbox.close();
    if (called) return; // an event the mailbox had taken in before it closed
    called = true;
    trace('first model call under way');
    callUnderWay();
  });
  // the store needs no SDK: its own light worker, booted once the prestarted Director's is ready (boot-plan
  // storeBootAfter) and, for a new task of a host that asks nobody, once its first model call is under way
  // (storeAfterFirstCall) or something needs the store first (a turn that ends without a call, a host request,
  // shutdown; a continued session's turn), at the latest STORE_LATEST_MS after the Director is ready; nobody waits for
  // it here (actors' connect waits until it serves, the Director's first request needs no answer of it), failures
  // surface in runTask and shutdown
  let needStore = (): void => undefined;
  const needed = new Promise<void>((resolve) => (needStore = resolve));
  const afterCall = !opts.canAsk && storeAfterFirstCall();
  const gate = afterCall ? storeBootAfter().then(() => Promise.race([firstCall, needed, latest(STORE_LATEST_MS)])) : storeBootAfter();
  const storeReady = gate.then(() => {
    trace('store: worker booting');
    return runtime.startService({ name: STORE_ACTOR, module: STORE_MODULE, input: storeInputFromConfig(opts.config), restart: 'permanent', preload: STORE_PRELOAD });
  });
  storeReady.catch(() => undefined); // marks it handled: see the line above
  const storeUp = (): Promise<boolean> => storeNow().then(() => true, () => false);
  /** The store, its boot begun now if it had not yet. */
  const storeNow = (): Promise<void> => (needStore(), storeReady);
  // MCP servers connect in the background: nobody waits for them; their tools reach agents when ready (MCP_SHARED_KEY)
  const mcpInput = mcpInputFromConfig(opts.config);
  if (mcpInput !== null) {
    const mcpReady = runtime.startService(mcpServiceSpec(mcpInput));
    mcpReady.catch(() => undefined); // each agent that sees MCP tools publishes the failure as a warning (mcpToolsFor)
  }
  // which worktree each parallel writer uses: on its row of every tree snapshot
  const worktrees = new WorktreeBook();
  runtime.dispatcher.consume({ name: 'worktree-book', filter: { types: ['delegation_worktree'] } }, (env) => worktrees.onEnvelope(env));
  // the first model call of a run that can delegate is under way (the model now takes its time): boot the
  // spare for delegations; a single-agent run (-d all) never boots it (its CPU and ~25 MB stay free)
  let delegating = false;
  const warmer = runtime.dispatcher.consume({ name: 'spare-warmer', filter: { types: ['ai_stream_start', 'llm_call_start'] } }, () => {
    if (!delegating) return;
    warmer.mailbox.close();
    trace('first model call under way: booting the delegation spare');
    return runtime.tasks.go('warm-spares', () => runtime.warm({ preload: delegationPreload(opts.config) }));
  });
  // the code index: its worker boots at the first model call for a workspace that may hold code, else at its first use
  const codeIndex = wireCodeIndex(runtime);
  // loads while the workers boot (light: AGENT_MODULE comes from the leaf agent-module.ts, not the agent graph)
  const { runTask } = await import('../../src/actors/agents/run-task.js');
  const store = runtime.connect<StoreApi>(STORE_ACTOR);
  const stderr = opts.stderr ?? ((t: string) => void process.stderr.write(t));
  const logs = startLogSink({ runtime, store, storeReady, mirror: opts.verbose === true ? stderr : undefined, onFailure: stderr });
  // status changes are timeline entries (what `attach timeline` and /timeline show beside notes and delegations)
  const status = async (taskId: string, from: string, to: string): Promise<void> => {
    await storeReady; // a status change waits for the store, never boots it
    await store.recordTimeline(taskId, { ts: new Date().toISOString(), type: 'status', from, to }).catch((e: unknown) =>
      runtime.publish({ name: 'host', taskId }, { type: 'log', level: 'warn', message: `timeline status ${to} not recorded: ${String(e)}`, source: 'recordTimeline' }),
    );
  };
  const statusLater = (taskId: string, from: string, to: string): void => {
    runtime.tasks.go(`timeline-${to}`, () => status(taskId, from, to));
  };
  const adapter: RuntimeAdapter = {
    async runTask(spec, taskId, signal) {
      runtime.reserveTask(taskId); // a pause given before the Director starts holds it at its first step
      statusLater(taskId, 'new', 'started');
      const turn = adapter.runTurn(spec, taskId, signal);
      setImmediate(taskStarted); // the turn after its Director's start message was posted (a ready spare)
      const outcome = await turn;
      await status(taskId, 'running', outcome.stopReason === 'cancelled' ? 'cancelled' : outcome.error !== undefined || !['plain_text', 'agent_exit'].includes(outcome.stopReason) ? 'failed' : 'done');
      return outcome;
    },
    async runTurn(spec, taskId, signal) {
      codeIndex.add(spec.workspace);
      // a cancel before the Director claimed the pre-sent request closes it (after a claim the Director's own abort does)
      signal.addEventListener('abort', dropPresend, { once: true });
      if (canDelegate(spec.options.disabledAgents)) delegating = true;
      try {
        if (spec.session) needStore(); // its turn reads the store before its Director starts
        const turn = runTask(runtime, {
          taskId,
          newTask: claimNewTaskId(taskId), // made here for this run: its board is new
          prompt: spec.prompt,
          workspace: spec.workspace,
          // a provider added to the file since start (`/model` re-reads it) is checked against the file as it is now
          config: await configNaming(opts, spec.options.provider),
          configPath: opts.configPath,
          yolo: spec.options.yolo,
          fullYolo: spec.options.fullYolo,
          disabledAgents: spec.options.disabledAgents,
          ...(spec.options.provider !== undefined ? { provider: spec.options.provider } : {}),
          ...(spec.options.model !== undefined ? { model: spec.options.model } : {}),
          ...(spec.session ? { session: spec.session } : {}),
          signal,
        });
        turn.then(needStore, needStore); // a turn that ended before any model call still records its end
        const [r] = await Promise.all([turn, storeReady]);
        const cost = estimateCost(r.usageByAgent, opts.config.llm.prices);
        return {
          taskId,
          text: r.text,
          stopReason: r.stopReason,
          usage: r.usage,
          usageByAgent: cost.entries,
          costUsd: cost.totalUsd,
          unpricedModels: cost.unpriced,
          notes: r.notes.map((n) => n.ref),
          notesError: r.notesError,
          rolloutPath: r.rolloutPath,
          sessionId: r.session.id,
          error: r.error !== undefined ? { name: 'TaskError', message: r.error } : undefined,
        };
      } catch (err) {
        // runTask itself publishes the one task_end of every outcome (return, throw, cancel)
        const stopReason = signal.aborted ? 'cancelled' : 'panic';
        return emptyOutcome(taskId, stopReason, signal.aborted ? undefined : serializeError(err));
      } finally {
        signal.removeEventListener('abort', dropPresend);
        dropPresend(); // a turn that ended before its first model call
        // its stop-hook failures are kept by stopFailures() and reported by shutdown (exit 1); the outcome is decided
        await runtime.endTask(taskId).catch(() => undefined);
      }
    },
    providers: () => Object.keys(opts.config.providers),
    models: () => modelChoices(opts.configPath, opts.config),
    async queueMessage(taskId, text) {
      await storeNow();
      // before the post: every client sees it queued before the Director's `user_message` takes it
      runtime.publish({ name: 'host', taskId }, { type: 'message_queued', text });
      await store.postToTask(taskId, { kind: 'message', text });
      bumpInbox(inboxSignal);
      return true;
    },
    async takeQueued(taskId) {
      await storeNow();
      return (await store.takeTaskInbox(taskId, 'message')).flatMap((i) => (i.kind === 'message' ? [i.text] : []));
    },
    async switchModel(taskId, provider, model) {
      const refused = provider === null ? null : checkChoice(await modelChoices(opts.configPath, opts.config), provider, model);
      if (refused !== null) return refused;
      await storeNow();
      await store.postToTask(taskId, { kind: 'model', provider, ...(model !== undefined ? { model } : {}) });
      bumpInbox(inboxSignal);
      return null;
    },
    subscribe(filter, onEnvelope) {
      const { mailbox } = runtime.dispatcher.consume(
        { name: `client-${++subscribers}`, filter: filter.taskId !== undefined ? { taskId: filter.taskId } : {}, fromSeq: filter.taskId !== undefined ? 0 : undefined },
        onEnvelope,
      );
      return () => mailbox.close();
    },
    pause: (taskId) => runtime.pauseTask(taskId) && (statusLater(taskId, 'running', 'paused'), true),
    resume: (taskId) => runtime.resumeTask(taskId) && (statusLater(taskId, 'paused', 'running'), true),
    pauseActor: (taskId, actor, paused) => runtime.pauseActors(taskId, actor, paused),
    respond: (_taskId, r) => runtime.respondUserHelp({ requestId: r.requestId, approved: r.approved, answer: r.answer, scope: r.scope }),
    tree: () => worktrees.decorate(runtime.snapshot()),
    crashActors: (name) => runtime.crashActors(name),
    async timeline(taskId, limit) {
      await storeNow();
      return (await store.timeline(taskId, { limit })).entries;
    },
    async timelinePage(taskId, limit, offset) {
      await storeNow();
      const p = await store.timeline(taskId, { limit, offset });
      return { entries: p.entries, total: p.total, hasMore: p.hasMore };
    },
    async memory(taskId) {
      await storeNow();
      return store.loadTaskMemory(taskId);
    },
    async deleteMemory(taskId) {
      await storeNow();
      return store.deleteTaskMemory(taskId);
    },
    async undoList(workspace) {
      await storeNow();
      return store.undoList(workspace);
    },
    async undoRestore(workspace, id, dryRun) {
      await storeNow();
      return store.undoRestore(workspace, id, { dryRun });
    },
    async drain(timeoutMs) {
      return runtime.tasks.drain(timeoutMs);
    },
    async writeRunFile(name, content) {
      await storeNow();
      return store.writeRunFile(name, content);
    },
    async removeRunFile(name) {
      await storeNow();
      return store.removeRunFile(name);
    },
    async shutdown() {
      warmer.mailbox.close();
      dropPresend();
      needStore();
      // the last lines reach the store before it flushes and stops
      await logs.close();
      // durability errors are reported, never swallowed: the final flush and every failing stop hook
      const failures: string[] = [];
      if (await storeUp()) {
        try {
          await store.flush();
        } catch (err) {
          failures.push(`store flush: ${serializeError(err).message}`);
        }
      }
      await runtime.shutdown();
      for (const f of runtime.stopFailures()) failures.push(`${f.actor} stop: ${f.error.message}`);
      if (failures.length > 0) throw durabilityError(failures);
    },
  };
  return adapter;
}
