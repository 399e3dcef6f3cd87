// One agent run, wired from injected dependencies: rollout, prompt, tools, delegations, the loop, the result.
import { boardIndexReader, inboxWatcher } from '../../store/client.js';
import type { Clock, PauseGate } from '../../runtime/actor.js';
import { ActivityClock, PauseController } from '../../runtime/pause.js';
import { LLM_USAGE_KIND, type StoreApi } from '../../store/api.js';
import type { TokenCounter } from '../llm/tokens.js';
import type { LlmEngine } from '../llm/types.js';
import type { ToolOutcome } from '../tools/types.js';
import type { ChatMessage } from './wire-types.js';
import type { Publish, ToolRunner, LoopResult } from './loop-contract.js';
import { AgentRunInputSchema, type AgentRunInput, type AgentRunInputParsed, type AgentRunOutput, type CustomAgentDesign } from './run-types.js';
import { runFlags, runSystemPrompt, withSections } from './first-call.js';
import type { ProjectContext } from './project-context.js';
import { StoreRecorder } from './recorder.js';
import { TaskMemorySaver } from './task-memory-saver.js';
import { runLoop } from './loop.js';
import { parseThought, stripThought } from './thought.js';
import { DelegationManager, type DelegateArgsLike, type SpawnChild } from './delegation.js';
import { DelegationBreaker, RunPool } from './pool.js';
import { noteIndexMessage } from './note-index.js';
import { metaBrief, runMeta } from './meta.js';
import { AbortReason } from './abort-reason.js';
import { crashRecovery } from './recovery.js';
import { initialMessages } from './initial-messages.js';
import { changedFiles } from './ledger-report.js';
import { workspaceFacts } from './workspace-facts.js';
import { Compressor } from './compression/compressor.js';
import { WindowBudget } from './compression/window-budget.js';
import { thinklinkRecord } from './compression/thinklink.js';
import { UsageLedger } from './usage-ledger.js';
import { publishWarning } from '../../runtime/log-event.js';
import { claimsWork } from './work-claims.js';
import type { Blueprint } from '../blueprint/blueprint.js';

export type AgentStore = Pick<
  StoreApi,
  | 'openRollout' | 'appendRollout' | 'drain' | 'buildIndex' | 'writeNote' | 'resolveRefs' | 'writeArtifact' | 'recordTimeline' | 'registerAgent'
  | 'saveTaskMemory' | 'writeCheckpoint' | 'readReplay' | 'readStopFacts' | 'taskRollouts' | 'readUsage' | 'undoPoint' | 'undoEnd' | 'undoList' | 'undoRestore' | 'takeTaskInbox'
>;

export interface ToolHooks {
  /** Runs a delegation for one tool call of this run (named after the call id); `ownTree`: in its own git worktree. */
  delegate(callId: string, target: string, args: DelegateArgsLike, signal: AbortSignal, ownTree?: boolean): Promise<ToolOutcome>;
  /** Custom agents registered so far: the Director's surface offers `delegate_<name>` for each. */
  customAgents(): readonly CustomAgentDesign[];
  /** Wraps a wait on the user (an approval, ask_user_for_help): the run's idle and total clocks stand still meanwhile. */
  waitingOnUser?<T>(wait: () => Promise<T>): Promise<T>;
}

export interface AgentEnv {
  store: AgentStore;
  engineFor(input: AgentRunInputParsed): LlmEngine;
  /** A new task's Director: the main thread pre-sent its first request (bin/host/presend.ts), which the first call
   *  claims only with the same bytes, so that call leaves out what the main thread could not know (the blueprint). */
  firstRequestPresent?(input: AgentRunInputParsed): boolean;
  /** Tier 2's summariser (`[tools.llm]` when set, else the agent's provider); absent = the agent's engine. */
  summarizerFor?(input: AgentRunInputParsed): LlmEngine;
  toolsFor(input: AgentRunInputParsed, hooks: ToolHooks): ToolRunner;
  spawn: SpawnChild;
  publish: Publish;
  clock: Clock;
  pause: PauseGate;
  /** A child's own pause by its actor name (absent: only the task's pause freezes a backstop). */
  childPause?: (name: string) => PauseGate;
  signal: AbortSignal;
  newId(): string;
  /** Per-session cache of the root docs and the module-doc list. */
  projectContext(workspace: string): ProjectContext;
  /** The repository blueprint (injection, read_blueprint, the Repo fold); absent: no blueprint in this env. */
  blueprint?: Blueprint;
  /** The host's task-inbox signal (ctx.shared); absent: the Director asks the store at every step. */
  inboxSignal?: SharedArrayBuffer;
  /** Tool names of the Director's palette (Meta chooses custom-agent tools from it). */
  palette(): readonly string[];
  /** Real token counts (the CPU pool in workers, this thread in-process): the artifact budget, compression. */
  tokens?: TokenCounter;
  /** Director breaker: consecutive failed delegations before delegation pauses, and its cooldown. */
  breaker?: { threshold: number; cooldownMs: number };
  retryBackoffMs?: number;
  /** Parent's hard backstop past the child's total timeout (default 10 s). */
  backstopGraceMs?: number;
}

/** The Director's un-delegated reminder naming the delegations it has; null when it has none of them (-d). */
export function undelegatedReminder(disabled: readonly string[] = []): string | null {
  const tools = ['repo', 'coding', 'devops'].filter((a) => !disabled.includes(a)).map((a) => `delegate_${a}`);
  if (tools.length === 0) return null;
  return `Your answer speaks of work on the workspace, but you delegated nothing this turn, so none of it happened. Work is delegated, never claimed: if the request needs facts from the workspace or any change, delegate it now (${tools.join(' / ')}). If it truly needs neither, reply again with your final answer, claiming no work, and no tool call.`;
}

export const UNDELEGATED_REMINDER = undelegatedReminder() ?? '';

export async function runAgent(env: AgentEnv, raw: AgentRunInput): Promise<AgentRunOutput> {
  const input = AgentRunInputSchema.parse(raw);
  const s = input.settings;
  const sessionId = env.newId();
  const project = env.projectContext(s.workspace);
  // The run does not wait for the store's answer to its rollout's opening: appends queue behind it, and the first
  // model request leaves meanwhile (the store may still be booting). A failed opening ends the run (below).
  const opening = env.store.openRollout(
    { sessionId, taskId: s.taskId, agent: input.agent, projectId: s.projectId, cwd: s.workspace, delegationId: input.delegationId, parentSessionId: input.parentSessionId, boardId: s.boardId },
    { agentSuffix: input.delegationId !== null },
  );
  const rolloutPath = opening.then((h) => h.path);
  rolloutPath.catch(() => undefined); // handled from the first tick: the run's abort (below) and its result carry it
  // the board's index is asked before every call; the store answers it only when the board may have changed
  const boardIndex = boardIndexReader(env.store);
  // the first step's note index is asked for with it; a new task's board is empty, so its Director asks nothing
  let firstIndex: Promise<ChatMessage[]> | null = input.role === 'meta' || input.freshBoard === true ? Promise.resolve([]) : noteIndexMessage(boardIndex, s, env.publish);
  // the blueprint is derived once per run, beside the start-up work, and re-sent with every call (never stored); the
  // Director never waits for it (its first request waits for nothing), a sub-agent at most BLUEPRINT_WAIT_MS
  let bpMessages: ChatMessage[] | null = env.blueprint ? null : [];
  const blueprint: Promise<unknown> = env.blueprint
    ? env.blueprint.injection(input.role, s.workspace, s.projectId).then(
        (m) => (bpMessages = m),
        (e: unknown) => (bpMessages = notUp(e) ? [] : (publishWarning(env.publish, 'blueprint', `${input.agent}: the blueprint is left out of this run`, e), [])),
      )
    : Promise.resolve();
  // the store is asked for the task's inbox only when the host posted something since (inbox-signal.ts)
  const inboxMoved = inboxWatcher(env.inboxSignal);
  let firstCall = true;
  const blueprintNow = async (): Promise<ChatMessage[]> => {
    if (bpMessages === null && input.role !== 'director') {
      let timer: { cancel(): void } | undefined;
      await Promise.race([blueprint, new Promise<void>((r) => (timer = env.clock.setTimeout(r, BLUEPRINT_WAIT_MS)))]);
      timer?.cancel();
    }
    return bpMessages ?? [];
  };
  /** The run's result starts with these; awaiting the path is where a failed opening fails the run. */
  const baseOf = async (): Promise<{ agent: string; rolloutPath: string; sessionId: string }> => ({ agent: input.agent, rolloutPath: await rolloutPath, sessionId });
  const root = await (input.rootContext ?? project.rootContext());
  const rollout = new StoreRecorder(rolloutPath, env.store, env.publish);
  // the Director's conversation is the task's memory (saved per step, debounced by the store)
  const recorder = input.role === 'director' ? new TaskMemorySaver(rollout, s.taskId, env.store, env.publish) : rollout;
  if (input.role === 'director' && root.files.length > 0) env.publish({ type: 'context_loaded', agent: input.agent, files: root.files });
  const flags = runFlags(input);
  const system = runSystemPrompt(input, root.text, flags.maxSteps);
  const engine = env.engineFor(input);
  // every own call is in the rollout too: a run killed before it returns is still counted from there
  const ledger = new UsageLedger((usage) => recorder.append([{ type: 'event_msg', ts: env.clock.now(), payload: { kind: LLM_USAGE_KIND, usage } }]));
  const usageOut = (): { usage: AgentRunOutput['usage']; usageByAgent: AgentRunOutput['usageByAgent'] } => ({ usage: ledger.total(), usageByAgent: ledger.list() });

  // Sub-agents time themselves (idle and total, frozen while paused); the parent keeps a hard backstop.
  const ctl = new AbortController();
  const onAbort = (): void => ctl.abort(env.signal.reason);
  // An abort that landed before this run started must still stop it.
  if (env.signal.aborted) onAbort();
  else env.signal.addEventListener('abort', onAbort, { once: true });
  // a rollout that cannot be opened stops the run at once (its call is cancelled); the run then fails with that error
  rolloutPath.catch((e: unknown) => ctl.abort(e));
  const gate = env.pause instanceof PauseController ? env.pause : undefined;
  const activity =
    input.role === 'director'
      ? null
      : new ActivityClock({
          idleMs: s.delegateIdleMs,
          totalMs: s.delegateTotalMs,
          clock: env.clock,
          ...(gate ? { gate } : {}),
          onTimeout: (kind) => ctl.abort(new AbortReason(kind === 'idle_timeout' ? 'IDLE_TIMEOUT' : 'TOTAL_TIMEOUT', `delegation ${kind.replace('_', ' ')}`)),
        });
  let tools: ToolRunner | undefined;
  try {
    if (input.role === 'meta') {
      const initial: ChatMessage[] = [{ role: 'system', content: system }, { role: 'user', content: metaBrief(input.brief, input.palette) }];
      const r = await runMeta({ engine, recorder, publish: env.publish, signal: ctl.signal, now: () => env.clock.now(), palette: input.palette }, initial);
      const stopReason = r.ok ? 'plain_text' : r.cancelled ? 'cancelled' : 'llm_error';
      ledger.add(input.agent, { ...engine.describe(), usage: r.usage }, r.attempts);
      recorder.append([{ type: 'event_msg', ts: env.clock.now(), payload: { kind: 'stop', stopReason, ...(r.ok ? {} : { detail: r.error }) } }]);
      await recorder.drain();
      return { ...(await baseOf()), stopReason, text: r.ok ? r.text : '', steps: r.attempts, ...usageOut(), thoughtFailures: 0, ...(r.ok ? { design: r.design } : { error: r.error }) };
    }

    const customs: CustomAgentDesign[] = [];
    const tokens = env.tokens;
    const manager = new DelegationManager({
      parentAgent: input.agent,
      parentSessionId: sessionId,
      settings: s,
      palette: env.palette(),
      store: env.store,
      // the first delegation starts loading the encoder on the pool: the deliverable's count needs it later
      spawn: tokens ? (...a: Parameters<AgentEnv['spawn']>) => (tokens.warm(engine.describe().model), env.spawn(...a)) : env.spawn,
      publish: env.publish,
      clock: env.clock,
      pool: new RunPool(s.maxParallelDelegations),
      breaker: new DelegationBreaker(env.breaker?.threshold ?? 3, env.breaker?.cooldownMs ?? 60_000, () => env.clock.now()),
      projectContext: project,
      rootContext: root,
      ...(tokens ? { countTokens: (text: string) => tokens.countText(text, engine.describe().model) } : {}),
      onCustomAgent: (d) => customs.push(d),
      ...(gate ? { pauseGate: gate } : {}),
      ...(env.childPause ? { childPause: env.childPause } : {}),
      ...(env.backstopGraceMs !== undefined ? { backstopGraceMs: env.backstopGraceMs } : {}),
      usage: ledger,
      recover: crashRecovery(env.store, s),
    });
    const hooks: ToolHooks = {
      delegate: (callId, target, args, signal, ownTree) => manager.delegate(callId, target, args, signal, undefined, ownTree === true),
      customAgents: () => customs,
      // a sub-agent waiting for the user's approval or answer is not idle: its timeouts must not fire meanwhile
      ...(activity ? { waitingOnUser: <T>(wait: () => Promise<T>) => activity.during(wait) } : {}),
    };
    tools = env.toolsFor(input, hooks);
    const isDirector = input.role === 'director';
    const reminder = undelegatedReminder(s.disabledAgents);
    // the deferred-tool catalogue (MCP) and the skills list follow the role prompt: stable for the whole run
    const fullSystem = withSections(system, tools.contextSections?.() ?? []);
    const mutates = (name: string): boolean => tools?.mutates?.(name) ?? true;
    // a resumed run's plans (session follow-up, continued delegation): its thinklink store starts from them, and this
    // rollout holds them again so the next resume finds them too (its replay, once compressed, does not)
    const plans = input.resumeFrom?.plans ?? input.session?.plans ?? [];
    if (plans.length > 0) recorder.append(plans.map((e) => thinklinkRecord(e, env.clock.now())));
    // recorded here, the earlier conversation before any interrupted delegation is recovered (a kill meanwhile keeps it)
    const initial = await initialMessages(
      input,
      fullSystem,
      mutates,
      { manager, store: env.store, publish: env.publish, signal: ctl.signal, maxReplayMessages: s.maxReplayMessages, enabled: s.resume, workspace: { cwd: s.workspace, degradeOnChange: s.degradeOnWorkspaceChange } },
      { recorder, now: () => env.clock.now(), publish: env.publish, agent: input.agent },
    );
    // the window, compression on or off: one result never fills it, and the provider's counts calibrate ours
    const budget = new WindowBudget({
      agent: input.agent,
      settings: s.compression,
      model: () => engine.describe().model,
      publish: env.publish,
      // the threshold decision counts with the model's real encoding on the CPU pool
      ...(tokens ? { tokens } : {}),
      // what every request really carries besides the messages, and the window the server has
      tools: () => tools?.defs() ?? [],
      ...(engine.window ? { window: async () => (await engine.window?.())?.tokens } : {}),
      ...(engine.learnWindow ? { learnWindow: (n: number) => engine.learnWindow?.(n) } : {}),
    });
    const result: LoopResult = await runLoop(
      {
        agent: input.agent,
        cwd: s.workspace,
        engine,
        tools,
        flags,
        recorder,
        initialRecorded: true,
        publish: env.publish,
        pause: env.pause,
        signal: ctl.signal,
        clock: env.clock,
        transient: async () => {
          const idx = await (firstIndex ?? noteIndexMessage(boardIndex, s, env.publish));
          firstIndex = null;
          const m = isDirector ? manager.mentions.message() : null;
          // the pre-sent first request has no blueprint: sent with it, the same call would not be claimed (and a second
          // request would go out); it comes with the next call, as when it is not derived in time
          const bp = firstCall && env.firstRequestPresent?.(input) === true ? [] : await blueprintNow();
          firstCall = false;
          // MCP servers that became ready (or changed) since the start: their tools, for this call only
          const mcp = (await tools?.refreshExternal?.()) ?? null;
          return [...bp, ...idx, ...(m ? [m] : []), ...(mcp !== null ? [{ role: 'user' as const, content: mcp }] : [])];
        },
        ...(isDirector ? { inbox: () => (inboxMoved() ? takeInbox(env, input.agent, s, engine) : Promise.resolve([])), afterResponse: (text: string) => manager.review(() => verdictOf(text)) } : {}),
        // one reminder at most, only for an answer that claims or promises work no delegation did; kept out of history
        ...(isDirector ? { plainTextReminder: (text: string) => (manager.count === 0 && claimsWork(text) ? reminder : null), ephemeralReminders: true } : {}),
        ...(activity ? { onActivity: () => activity.touch() } : {}),
        ...(env.retryBackoffMs !== undefined ? { retryBackoffMs: env.retryBackoffMs } : {}),
        ...(tokens ? { tokens } : {}),
        budget,
        ...(s.compression.enabled
          ? {
              compressor: new Compressor({
                agent: input.agent,
                settings: s.compression,
                summarizer: env.summarizerFor?.(input) ?? engine,
                model: () => engine.describe().model,
                brief: input.brief,
                recorder,
                publish: env.publish,
                now: () => env.clock.now(),
                signal: ctl.signal,
                plans,
                budget,
              }),
            }
          : {}),
        ledger,
      },
      initial,
    );
    // the workspace a delegation's checkpoint saw (read while the run drains): a resume onto another one becomes C
    const facts = s.resume && s.checkpointWorkspace && input.delegationId !== null ? workspaceFacts(s.workspace, changedFiles(result.messages)) : null;
    // a cancelled delegate_* call returned at once; its child's report (usage) arrives when the child has stopped
    await manager.settled();
    await recorder.drain();
    // recovery B reads the last stop point only: one checkpoint, on the terminal path, fingerprinted by the store
    if (s.resume) {
      const cp = { step: result.steps, stopReason: result.stopReason, model: engine.describe().model, delegationId: input.delegationId, ...(facts ? { workspace: await facts } : {}) };
      await env.store.writeCheckpoint(await rolloutPath, cp).catch((e: unknown) => env.publish({ type: 'log', level: 'warn', message: `${input.agent}: checkpoint not written: ${String(e)}` }));
    }
    if (isDirector) env.publish({ type: 'conversation_result', agent: input.agent, text: result.text, stopReason: result.stopReason });
    const blueprintAccount = input.role === 'repo' && result.exit && env.blueprint ? await foldBlueprint(env, env.blueprint, input, result.exit.blueprint ?? []) : undefined;
    return {
      ...(await baseOf()),
      stopReason: result.stopReason,
      text: result.text,
      steps: result.steps,
      ...usageOut(),
      thoughtFailures: result.thoughtFailures,
      ...(result.exit ? { exit: { conclusion: result.exit.conclusion, facts: result.exit.facts, artifacts: result.exit.artifacts, status: modelStatus(result.exit.status), ...(result.exit.deliverable ? { deliverable: result.exit.deliverable } : {}) } } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(blueprintAccount !== undefined ? { blueprintAccount } : {}),
    };
  } finally {
    activity?.dispose();
    env.signal.removeEventListener('abort', onAbort);
    // the Browser agent's browser ends with its run, whatever ended the run
    await tools?.close?.().catch((e: unknown) => publishWarning(env.publish, 'tools.close', `${input.agent}: its tools did not close cleanly`, e));
  }
}

/** The Director's verdict on what it just read: its thought's reason (else its step), or the start of its reply. */
function verdictOf(text: string): string {
  const t = parseThought(text);
  const said = t.kind === 'ok' ? t.thought.reason || t.thought.step : stripThought(text);
  const line = said.replace(/\s+/g, ' ').trim();
  return (line.length > 300 ? `${line.slice(0, 299)}…` : line) || '(no words: it went on with its next tool call)';
}

/** The Director's step boundary: messages typed meanwhile become user messages, a model switch applies to its next
 *  call and to the delegations it starts from now on. A failed take is a warning (the client sends them next turn). */
async function takeInbox(env: AgentEnv, agent: string, s: AgentRunInputParsed['settings'], engine: LlmEngine): Promise<ChatMessage[]> {
  const items = await env.store.takeTaskInbox(s.taskId).catch((e: unknown) => (publishWarning(env.publish, 'takeTaskInbox', `${agent}: queued messages not read`, e), []));
  const out: ChatMessage[] = [];
  for (const item of items) {
    if (item.kind === 'message') {
      out.push({ role: 'user', content: item.text });
      env.publish({ type: 'user_message', agent, text: item.text });
      continue;
    }
    try {
      engine.setOverride?.(item.provider, item.model);
      // delegations started from now on talk to the same model (settings are handed down in each spawn)
      if (item.provider === null) delete s.providerOverride;
      else s.providerOverride = item.provider;
      if (item.model === undefined) delete s.modelOverride;
      else s.modelOverride = item.model;
      env.publish({ type: 'model_switched', agent, provider: item.provider, ...(item.model ? { model: item.model } : {}) });
    } catch (err) {
      env.publish({ type: 'model_switched', agent, provider: item.provider, ...(item.model ? { model: item.model } : {}), error: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/** How long a sub-agent's first call waits for the blueprint (the code index answers within about a second). */
const BLUEPRINT_WAIT_MS = 2_000;

/** The code index is not up (yet, or in this process at all): the run goes without the derived layer, no warning. */
function notUp(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'NOT_FOUND';
}

/** The Repo completion seam: the fold's account goes to the event stream here and to the note (delegation.ts). */
async function foldBlueprint(env: AgentEnv, bp: Blueprint, input: AgentRunInputParsed, entries: string[]): Promise<string | undefined> {
  // none submitted: one distinguishable line on the event stream (pitfall 40); the note stays the deliverable alone
  if (entries.length === 0) {
    env.publish({ type: 'log', level: 'info', message: `${input.agent}: blueprint: no entries submitted (nothing written)` });
    return undefined;
  }
  const account = await bp.fold(input.settings.workspace, input.settings.projectId, entries).catch((e: unknown) => `blueprint: not written (${e instanceof Error ? e.message : String(e)})`);
  env.publish({ type: 'log', level: account.includes('not written') || account.includes('dropped') ? 'warn' : 'info', message: `${input.agent}: ${account}` });
  return account;
}

function modelStatus(s: string): 'ok' | 'partial' | 'error' {
  return s === 'partial' || s === 'error' ? s : 'ok';
}
