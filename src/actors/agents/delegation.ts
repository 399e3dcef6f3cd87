// Delegation = a fresh actor per call: pool slot, brief, spawn, one note with the full deliverable.
import type { Clock } from '../../runtime/actor.js';
import { ActivityClock, anyPaused, PauseController } from '../../runtime/pause.js';
import type { PauseGate } from '../../runtime/actor.js';
import { publishWarning } from '../../runtime/log-event.js';
import type { StoreApi, NoteMeta } from '../../store/api.js';
import type { ToolOutcome } from '../tools/types.js';
import type { ChatMessage, HandoffStatus, StopReason } from './wire-types.js';
import type { Publish } from './loop-contract.js';
import type { ProjectContext } from './project-context.js';
import { resultOnError, type AgentRunInput, type AgentRunOutput, type CustomAgentDesign, type RunSettings } from './run-types.js';
import { isBuiltin } from './profiles.js';
import { disabledHow } from '../tools/profiles.js';
import type { DelegationBreaker, RunPool } from './pool.js';
import { buildBrief, summarize } from './brief.js';
import { MentionBook } from './mentions.js';
import type { UsageLedger } from './usage-ledger.js';
import { isCrash, restartOrReport } from './recovery.js';
import type { Assessment } from './replay-assessment.js';
import type { ThinkEntry } from './compression/thinklink.js';
import { canWrite, undoAfter, undoBefore } from './undo-points.js';
import { withReport, WriterTrees } from './writer-run.js';

export type DelegationStore = Pick<StoreApi, 'writeNote' | 'resolveRefs' | 'writeArtifact' | 'recordTimeline' | 'registerAgent' | 'taskRollouts' | 'readUsage' | 'undoPoint' | 'undoEnd'>;

export type SpawnChild = (name: string, input: AgentRunInput, delegationId: string, signal: AbortSignal) => Promise<AgentRunOutput>;

export interface DelegationDeps {
  parentAgent: string;
  parentSessionId: string;
  settings: RunSettings;
  palette: readonly string[];
  store: DelegationStore;
  spawn: SpawnChild;
  publish: Publish;
  clock: Clock;
  pool: RunPool;
  breaker: DelegationBreaker;
  projectContext: ProjectContext;
  rootContext?: { files: string[]; text: string };
  countTokens?: (text: string) => number | Promise<number>;
  /** Called when Meta designed an agent: the parent's surface gains `delegate_<name>`. */
  onCustomAgent?: (design: CustomAgentDesign) => void;
  /** Extra time past the total timeout before the parent stops the child by force. */
  backstopGraceMs?: number;
  /** The task's pause gate: the backstop counts active time only, like the child's own clock. */
  pauseGate?: PauseController;
  /** A child's own pause (`attach pause TASK CALL_ID`), by actor name: the backstop freezes with it too. */
  childPause?: (name: string) => PauseGate;
  /** The parent run's usage ledger: each child's report (its descendants included) is merged here. */
  usage?: UsageLedger;
  /** Reads a crashed delegation's rollout (recovery.ts `crashRecovery`): replay it (B) or hand over a report (C). */
  recover?: (callId: string) => Promise<Assessment>;
}

export interface DelegateArgsLike {
  task: string;
  context_refs?: string[];
}

/** Stop reasons that mean "abandoned": the delegation writes nothing (blackboard rule 3). */
const ABANDONED: ReadonlySet<StopReason> = new Set<StopReason>(['paused', 'cancelled']);

export class DelegationManager {
  readonly mentions = new MentionBook();
  private readonly customs = new Map<string, CustomAgentDesign>();
  /** Delegations that ended with a note the parent has not answered yet (its next step is their review). */
  private readonly unreviewed: { agent: string; ref: string }[] = [];
  private started = 0;
  /** Restarts per delegation call after crashes (`[resume] max_restarts` bounds them). */
  private readonly restarts = new Map<string, number>();
  /** Child rollouts whose usage is merged already (a returned result or a ledger read): none is counted twice. */
  private readonly counted = new Set<string>();
  /** Delegations still running: a cancelled tool call returns at once, its delegation winds down behind it. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Write delegations run beside others, each in its own git worktree (issue 26). */
  private readonly trees: WriterTrees;

  constructor(private readonly deps: DelegationDeps) {
    this.trees = new WriterTrees({ parentAgent: deps.parentAgent, settings: deps.settings, store: deps.store, publish: deps.publish });
  }

  /** Delegations started by this run (the Director's un-delegated reminder reads it). */
  get count(): number {
    return this.started;
  }

  customAgent(name: string): CustomAgentDesign | undefined {
    return this.customs.get(name);
  }

  async registerCustom(design: CustomAgentDesign): Promise<void> {
    this.customs.set(design.name, design);
    this.deps.onCustomAgent?.(design);
    // Known to mention extraction from now on, so `@<name>` in a note routes like a built-in.
    await this.deps.store.registerAgent(design.name).catch((e: unknown) => publishWarning(this.deps.publish, 'registerAgent', `custom agent "${design.name}" is not known to mention routing`, e));
  }

  /** `resumeFrom` (recovery B): the same delegation continued from its repaired replay instead of a fresh brief.
   *  `ownTree`: a writer running beside others (its batch said so) works in its own git worktree. */
  delegate(callId: string, target: string, args: DelegateArgsLike, signal: AbortSignal, resumeFrom?: { messages: ChatMessage[]; plans: ThinkEntry[] }, ownTree = false): Promise<ToolOutcome> {
    const p = this.run(callId, target, args, signal, resumeFrom, ownTree);
    this.inFlight.add(p);
    const forget = (): void => void this.inFlight.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** Resolves once every delegation of this run has ended (a cancelled one included: its child's usage is merged by
   *  then and its delegation_end published). Bounded: a stopping worker gives up on its children within its grace. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async run(callId: string, target: string, args: DelegateArgsLike, signal: AbortSignal, resumeFrom?: { messages: ChatMessage[]; plans: ThinkEntry[] }, ownTree = false): Promise<ToolOutcome> {
    const d = this.deps;
    const refs = args.context_refs ?? [];
    const custom = this.customs.get(target);
    if (!isBuiltin(target) && !custom) return err('unknown_agent', `no agent named "${target}"`);
    // the surface already withholds the tool: this guards every other path to a disabled agent
    if (d.settings.disabledAgents.includes(target)) return err('agent_disabled', `The ${target} agent is disabled for this run (${disabledHow(target)}); do the work another way or tell the user.`);
    if (!d.breaker.allow()) {
      return err('circuit_open', 'Several delegations failed in a row; delegation is paused for a while. Report the failures to the user or try a different approach.');
    }
    this.started++;
    const name = `delegation:${callId}:${target}`;
    d.publish({ type: 'delegation_start', agent: d.parentAgent, callId, child: target, task: args.task.slice(0, 500) });
    await this.timeline({ type: 'delegation', agent: target, callId, phase: 'start' });
    let release: (() => void) | null = null;
    let merged = '';
    try {
      release = await d.pool.acquire(signal);
      const triggeredBy = this.mentions.consume(target, refs);
      const brief = resumeFrom ? args.task : await buildBrief({ task: args.task, refs, boardId: d.settings.boardId, store: d.store, projectContext: d.projectContext, publish: d.publish, triggeredBy });
      // a writer beside others works in its own worktree: its shell cwd and its guard are there, not in the user's tree
      const tree = ownTree && canWrite(target, custom) ? await this.trees.open(callId, target) : null;
      const input: AgentRunInput = {
        agent: target,
        role: custom ? 'custom' : (target as AgentRunInput['role']),
        brief,
        settings: tree ? { ...d.settings, workspace: tree.workspace, userWorkspace: d.settings.userWorkspace ?? d.settings.workspace } : d.settings,
        ...(custom ? { custom } : {}),
        palette: [...d.palette],
        delegationId: callId,
        parentSessionId: d.parentSessionId,
        ...(d.rootContext ? { rootContext: d.rootContext } : {}),
        ...(resumeFrom ? { resumeFrom: { messages: resumeFrom.messages, plans: resumeFrom.plans } } : {}),
      };
      // a write delegation's undo point is taken when it holds its slot, right before it runs (in a worktree: its merge)
      const point = tree ? null : await undoBefore(d.store, d.settings, d.publish, callId, target, args.task, custom);
      // whatever ended the run (done, failed, cancelled, crashed), a worktree's changes are merged back, then it goes
      const out = await this.spawnWithBackstop(name, input, callId, signal).finally(async () => {
        await undoAfter(d.store, d.settings, d.publish, point);
        if (tree) merged = await this.trees.merge(tree, callId, target, args.task);
      });
      // spent whatever the outcome, abandoned runs included
      this.spent(out);
      if (ABANDONED.has(out.stopReason) || signal.aborted) return withReport(await this.abandoned(callId, target, out.stopReason), merged);
      const outcome = withReport(await this.finish(callId, target, out, triggeredBy), merged);
      if (out.design && target === 'meta') return await this.runDesigned(callId, out.design, args, signal, outcome);
      return outcome;
    } catch (e) {
      await this.spentBy(callId, e);
      if (signal.aborted) return withReport(await this.abandoned(callId, target, 'cancelled'), merged);
      const message = e instanceof Error ? `${(e as { code?: string }).code ?? e.name}: ${e.message}` : String(e);
      if (d.recover && isCrash(e)) {
        release?.(); // the restart takes its own pool slot
        release = null;
        return withReport(await this.afterCrash(callId, target, args, signal, message, d.recover), merged);
      }
      d.breaker.failure();
      const meta = await this.writeNote(target, callId, 'error', `Delegation to ${target} failed: ${message}`, [], undefined);
      await this.end(callId, target, 'error', meta?.ref);
      return withReport(err('delegation_failed', `The ${target} delegation failed (${message}). ${merged === '' ? 'Its work is lost; ' : ''}the task can go on.`), merged);
    } finally {
      release?.();
    }
  }

  private spent(out: AgentRunOutput): void {
    this.counted.add(out.rolloutPath);
    this.deps.usage?.merge(out.usageByAgent ?? []);
  }

  /** A child that failed still spent tokens: a cancelled one hands its result over on the error (`result`); one that
   *  returned nothing (killed past its grace, crashed) is counted from what its rollout recorded. */
  private async spentBy(callId: string, e: unknown): Promise<void> {
    const d = this.deps;
    if (!d.usage) return;
    const returned = resultOnError(e);
    if (returned !== null) return this.spent(returned);
    try {
      const heads = await d.store.taskRollouts(d.settings.projectId, d.settings.taskId);
      const head = heads.filter((h) => h.meta.delegationId === callId && !this.counted.has(h.path)).at(-1);
      if (!head) return;
      this.counted.add(head.path);
      d.usage.merge(await d.store.readUsage(head.path));
    } catch (err) {
      publishWarning(d.publish, 'readUsage', `the tokens of delegation ${callId} could not be read from its rollout`, err);
    }
  }

  private async spawnWithBackstop(name: string, input: AgentRunInput, callId: string, signal: AbortSignal): Promise<AgentRunOutput> {
    const d = this.deps;
    const ctl = new AbortController();
    const onAbort = (): void => ctl.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    // active time, not wall time: a long pause (of the task, or of this child alone) must not let the backstop kill
    // a child whose own clock froze
    const child = d.childPause?.(name);
    const gates = [d.pauseGate, child instanceof PauseController ? child : undefined].filter((g): g is PauseController => g !== undefined);
    const paused = anyPaused(gates);
    const backstop = new ActivityClock({
      totalMs: d.settings.delegateTotalMs + (d.backstopGraceMs ?? 10_000),
      clock: d.clock,
      gate: paused.gate,
      onTimeout: () => ctl.abort(Object.assign(new Error('delegation total timeout (backstop)'), { code: 'TOTAL_TIMEOUT' })),
    });
    try {
      return await d.spawn(name, input, callId, ctl.signal);
    } finally {
      backstop.dispose();
      paused.dispose();
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async finish(callId: string, target: string, out: AgentRunOutput, triggeredBy: string | undefined): Promise<ToolOutcome> {
    const d = this.deps;
    const status = statusOf(out);
    if (status === 'error') d.breaker.failure();
    else d.breaker.success();
    const deliverable = out.text.trim() !== '' ? out.text : `${target} stopped with ${out.stopReason} and no deliverable${out.error ? `: ${out.error}` : ''}`;
    const tokens = await (d.countTokens ?? approxTokens)(deliverable);
    let artifactId: string | undefined;
    // YAGENT_ARTIFACT_DISABLE=1: the full deliverable stays in the context (the note keeps it either way)
    if (d.settings.artifacts && tokens > d.settings.artifactTokenBudget) artifactId = await d.store.writeArtifact(deliverable);
    const meta = await this.writeNote(target, callId, status, deliverable, out.exit?.facts ?? [], artifactId, out.exit?.artifacts, triggeredBy, out.blueprintAccount);
    await this.end(callId, target, status, meta?.ref);
    const head = `[${target} ${status} · stop ${out.stopReason}${meta ? ` · note ${meta.ref}` : ''}]`;
    const body =
      (artifactId ? `${summarize(deliverable, 1200)}\n\n(full deliverable: ${tokens} tokens in artifact ${artifactId}; read it with read_artifact)` : deliverable) +
      handoffLines(out.exit?.facts ?? [], out.exit?.artifacts ?? []);
    if (status === 'error') return err('delegation_failed', `${head}\n${body}`);
    return { kind: 'ok', content: `${head}\n${body}`, display: `${target}: ${status}` };
  }

  private async writeNote(
    target: string,
    callId: string,
    status: HandoffStatus,
    body: string,
    facts: string[],
    artifactId: string | undefined,
    modelArtifacts: string[] = [],
    triggeredBy?: string,
    blueprintAccount?: string,
  ): Promise<NoteMeta | null> {
    const d = this.deps;
    const meta = await d.store
      .writeNote({
        boardId: d.settings.boardId,
        agent: target,
        // the blueprint fold's account is the note's (and the event stream's), never the conclusion (pitfall 43)
        body: blueprintAccount !== undefined ? `${body}\n\n---\n${blueprintAccount}\n` : body,
        handoff: {
          version: 2,
          agent: target,
          status,
          conclusion: summarize(body, 1200),
          facts,
          artifacts: modelArtifacts,
          delegationId: callId,
          taskId: d.settings.taskId,
          mentions: [],
          ...(triggeredBy ? { triggeredBy } : {}),
        },
        ...(artifactId ? { systemArtifacts: [artifactId] } : {}),
        ...(triggeredBy ? { triggeredBy } : {}),
      })
      .catch((e: unknown) => {
        d.publish({ type: 'log', level: 'error', message: `note for ${target} not written: ${String(e)}` });
        return null;
      });
    if (meta) {
      const mentions = meta.handoff.mentions.filter((m) => m !== target);
      d.publish({ type: 'note_written', agent: target, ref: meta.ref, status, mentions });
      // a disabled agent cannot answer: its mention never becomes pending
      for (const m of mentions) if (!d.settings.disabledAgents.includes(m)) this.mentions.add({ agent: m, ref: meta.ref, by: target });
    }
    return meta;
  }

  /** Meta designed an agent: register it for the rest of the task and run it once at once. */
  private async runDesigned(callId: string, design: CustomAgentDesign, args: DelegateArgsLike, signal: AbortSignal, metaOutcome: ToolOutcome): Promise<ToolOutcome> {
    await this.registerCustom(design);
    const ran = await this.delegate(`${callId}-run`, design.name, args, signal);
    const metaText = metaOutcome.kind === 'ok' ? metaOutcome.content : '';
    const runText = ran.kind === 'ok' ? ran.content : ran.kind === 'error' ? `error: ${ran.error.message}` : '';
    return {
      kind: 'ok',
      content: `Designed and registered delegate_${design.name} (${design.description}); tools: ${design.tools.join(', ') || 'none'}.\n${metaText}\n\nFirst run of ${design.name}:\n${runText}`,
      display: `meta: delegate_${design.name}`,
    };
  }

  /** Supervisor restart: the crashed actor is started again from its rollout (B) up to max_restarts; then, or when its
   *  ledger cannot be trusted, the parent gets a degraded report (C). The restart and its reason are an event. */
  private async afterCrash(callId: string, target: string, args: DelegateArgsLike, signal: AbortSignal, reason: string, recover: (callId: string) => Promise<Assessment>): Promise<ToolOutcome> {
    const d = this.deps;
    const attempt = (this.restarts.get(callId) ?? 0) + 1;
    this.restarts.set(callId, attempt);
    const next = restartOrReport(target, await recover(callId), attempt, d.settings.maxRestarts, reason);
    if (next.kind === 'restart') {
      d.publish({ type: 'delegation_restarted', agent: d.parentAgent, callId, child: target, attempt, maxRestarts: d.settings.maxRestarts, reason });
      return this.delegate(callId, target, args, signal, next.from);
    }
    const report = next.report;
    const note = await this.degraded(callId, target, report);
    return { kind: 'ok', content: `[${target} degraded${note ? ` · note ${note.ref}` : ''}]\n${report}`, display: `${target}: degraded` };
  }

  /** Recovery C: a delegation that cannot be replayed hands over a report built from its ledger (a note, never an error). */
  async degraded(callId: string, target: string, report: string): Promise<NoteMeta | null> {
    this.started++; // a recovered delegation of this turn: the Director's answer is not un-delegated
    const meta = await this.writeNote(target, callId, 'degraded', report, [], undefined);
    await this.end(callId, target, 'degraded', meta?.ref);
    return meta;
  }

  private async abandoned(callId: string, target: string, stopReason: StopReason): Promise<ToolOutcome> {
    await this.end(callId, target, stopReason);
    return err('abandoned', `The ${target} delegation was ${stopReason} before it finished; nothing was recorded.`);
  }

  /** Awaited like the start record: the end is in the timeline before the parent sees the tool result. */
  private async end(callId: string, target: string, status: string, noteRef?: string): Promise<void> {
    this.deps.publish({ type: 'delegation_end', agent: this.deps.parentAgent, callId, child: target, status, ...(noteRef ? { noteRef } : {}) });
    if (noteRef) this.unreviewed.push({ agent: target, ref: noteRef });
    await this.timeline({ type: 'delegation', agent: target, callId, phase: 'end', status });
  }

  /** The parent's next step read the delegations' outputs: its verdict is each one's review entry in the timeline.
   *  `verdictOf` runs only when a delegation awaits its review (most steps have none: nothing is parsed on their path). */
  async review(verdictOf: () => string): Promise<void> {
    if (this.unreviewed.length === 0) return;
    const ts = new Date(this.deps.clock.now()).toISOString();
    const verdict = verdictOf();
    for (const { agent, ref } of this.unreviewed.splice(0)) {
      await this.deps.store
        .recordTimeline(this.deps.settings.taskId, { ts, type: 'review', agent, ref, verdict })
        .catch((e: unknown) => publishWarning(this.deps.publish, 'recordTimeline', `timeline review of ${ref} not recorded`, e));
    }
  }

  private async timeline(entry: { type: 'delegation'; agent: string; callId: string; phase: 'start' | 'end'; status?: string }): Promise<void> {
    await this.deps.store
      .recordTimeline(this.deps.settings.taskId, { ts: new Date(this.deps.clock.now()).toISOString(), ...entry })
      .catch((e: unknown) => publishWarning(this.deps.publish, 'recordTimeline', `timeline entry (${entry.agent} ${entry.phase}) not recorded`, e));
  }
}

/** ok/partial come from the model; error from a failed delegation (blackboard rule 3). */
export function statusOf(out: AgentRunOutput): HandoffStatus {
  switch (out.stopReason) {
    case 'agent_exit':
      return out.exit?.status ?? 'ok';
    case 'plain_text':
      return out.agent === 'chat' || out.agent === 'meta' ? 'ok' : 'partial';
    case 'max_steps':
    case 'llm_error':
    case 'circuit_breaker_open':
    case 'panic':
    case 'idle_timeout':
    case 'total_timeout':
    case 'unaccounted':
    case 'paused':
    case 'cancelled':
      return 'error';
  }
}

/** The handoff's facts and changed files, which the delegate_* descriptions promise the caller. */
function handoffLines(facts: readonly string[], artifacts: readonly string[]): string {
  const parts: string[] = [];
  if (facts.length > 0) parts.push(`Facts:\n${facts.map((f) => `- ${f}`).join('\n')}`);
  if (artifacts.length > 0) parts.push(`Files and artifacts: ${artifacts.join(', ')}`);
  return parts.length > 0 ? `\n\n${parts.join('\n')}` : '';
}

function err(kind: string, message: string): ToolOutcome {
  return { kind: 'error', error: { kind, message } };
}

export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
