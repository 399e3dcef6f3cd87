// The one builder of an agent run's dependencies (AgentEnv) from its host: the worker and the in-process test harness share it (pitfalls 33/39).
import { randomUuid } from '../../runtime/lazy-builtins.js';
import type { Clock, PauseGate, Remote } from '../../runtime/actor.js';
import type { YagentConfig } from '../../runtime/config/index.js';
import { withProviderModel } from '../../runtime/config/resolve.js';
import type { StoreApi } from '../../store/api.js';
import { TASK_INBOX_SHARED_KEY, toolStoreAccess } from '../../store/client.js';
import { buildAgentEngine, buildToolEngine } from '../llm/build.js';
import { claimingFetch, PRESEND_SHARED_KEY, presendOffered } from '../llm/transport/presend.js';
import { httpFetch } from '../llm/transport/http-fetch.js';
import { inPlaceBackend, TokenCounter, type TokenBackend } from '../llm/tokens.js';
import type { LlmEngine } from '../llm/types.js';
import type { Authorizer } from '../tools/authorizer.js';
import { toolSecurity } from '../tools/security.js';
import type { SpawnChild } from './delegation.js';
import type { Publish } from './loop-contract.js';
import type { GrantStore } from './project-grants.js';
import { ProjectContext } from './project-context.js';
import type { AgentEnv, AgentStore } from './run-agent.js';
import type { AgentRunInputParsed } from './run-types.js';
import { buildToolRunner, paletteNames, type CodeSeekPort, type ToolWiring } from './tool-wiring.js';
import type { McpUpdate } from '../mcp/agent-tools.js';
import type { ToolDeclaration } from '../tools/types.js';
import { dataRoot } from '../../store/client.js';
import { discoverSkills, skillRoots, skillsSection } from '../skills/discover.js';
import { useSkillTool } from '../skills/use-skill.js';
import { discoverBrowser } from '../browser/discover.js';
import { Blueprint } from '../blueprint/blueprint.js';

/** Everything an agent run reaches in the store: the run's own calls, grants, and the tools' read access. */
export type HostStore = AgentStore & GrantStore & Pick<Remote<StoreApi>, 'listNotes' | 'readNote' | 'readArtifact' | 'writeImageArtifact' | 'readBlueprint' | 'writeBlueprint'>;

/** What the host provides: a worker's ActorContext in production (`actorHost`), in-process stand-ins in tests. */
export interface AgentHost {
  store: HostStore;
  publish: Publish;
  clock: Clock;
  pause: PauseGate;
  /** `ctx.childPause`: a child's own pause (attach pause TASK CALL_ID), mirrored for this run's backstop timers. */
  childPause?: (name: string) => PauseGate;
  signal: AbortSignal;
  /** ctx.shared: the process-wide llm gate and breakers (absent = per-engine state). */
  shared?: Readonly<Record<string, SharedArrayBuffer>>;
  authorizer: Authorizer;
  askUser(agent: string, question: string): Promise<string>;
  spawn: SpawnChild;
  /** Where token counts run: the process's CPU pool in a worker (`poolBackend`); absent = this thread. */
  tokens?: TokenBackend;
  /** MCP tools for this run's agent (what the ready servers offered when the run started; none = no MCP). */
  external?: readonly ToolDeclaration[];
  /** The current MCP tools when the catalogue changed since the last look, else null (checked at each step). */
  refreshExternal?: () => Promise<McpUpdate | null>;
  /** The data root (user-level skills live under it); default from the environment. */
  dataRoot?: string;
  /** The code index (the codeseek actor in a worker); absent: the codeseek_* tools say code search is off. */
  code?: CodeSeekPort;
}

/** The only parts a test may swap; production passes none. */
export interface AgentSeams {
  /** The model endpoint (default: the engine the config builds for the agent). */
  engineFor?: (input: AgentRunInputParsed) => LlmEngine;
  /** Base of the loop's step-retry backoff (default 1 s in the loop). */
  retryBackoffMs?: number;
  /** Parent's hard backstop past the child's total timeout (default 10 s in delegation). */
  backstopGraceMs?: number;
}

/** The Director's delegation breaker: consecutive failed delegations before delegating pauses, and its cooldown. */
export const DELEGATION_BREAKER = { threshold: 3, cooldownMs: 60_000 } as const;

/** What a run's tools depend on besides its input: skills (read per run: a skill added between two runs is there for
 *  the next one) and the browser (looked up per run, cheap: a few stats). The CLI's pre-sent Director request too. */
export function runToolExtras(config: YagentConfig, input: AgentRunInputParsed, root: string): Pick<ToolWiring, 'runtimeTools' | 'sections' | 'browser'> {
  const skills = config.skills.enabled && config.skills.agents.includes(input.role) ? discoverSkills(skillRoots(root, input.settings.workspace)) : new Map();
  return {
    ...(skills.size > 0 ? { runtimeTools: [useSkillTool(skills)], sections: [skillsSection(skills)] } : {}),
    ...(input.role === 'director' || input.role === 'browser' ? { browser: discoverBrowser(config.browser, process.env) } : {}),
  };
}

export function buildAgentEnv(host: AgentHost, config: YagentConfig, seams: AgentSeams = {}): AgentEnv {
  // cached per env (= per worker): the Director hands its root docs down in the run input
  const contexts = new Map<string, ProjectContext>();
  const newId = (): string => randomUuid();
  const security = toolSecurity(config);
  const blueprint = new Blueprint({ store: host.store, code: host.code, config: config.blueprint, publish: host.publish, now: () => host.clock.now() });
  const deps = { publish: host.publish, clock: host.clock, ...(host.shared ? { shared: host.shared } : {}) };
  // a new task's Director: its first request may have been sent already by the main thread (claimed if identical)
  const presendFor = (input: AgentRunInputParsed): SharedArrayBuffer | undefined =>
    input.role === 'director' && input.delegationId === null && !input.session && !input.resumeFrom ? host.shared?.[PRESEND_SHARED_KEY] : undefined;
  const engineFor =
    seams.engineFor ??
    ((input: AgentRunInputParsed): LlmEngine => {
      const { providerOverride: over, modelOverride: model } = input.settings;
      // --model: the override provider with that model, for this run only (the config file is not touched)
      const cfg = over !== undefined && model !== undefined ? withProviderModel(config, over, model) : config;
      const presend = presendFor(input);
      const engine = buildAgentEngine(cfg, input.agent, presend !== undefined ? { ...deps, modelFetch: claimingFetch(presend, httpFetch) } : deps);
      // /model in the TUI: this turn's provider for every agent, through the routing wrapper's override
      if (input.settings.providerOverride !== undefined) engine.setOverride(input.settings.providerOverride, input.settings.modelOverride);
      return engine;
    });
  const inboxSignal = host.shared?.[TASK_INBOX_SHARED_KEY];
  return {
    store: host.store,
    engineFor,
    firstRequestPresent: (input) => {
      const sab = presendFor(input);
      return sab !== undefined && presendOffered(sab);
    },
    ...(inboxSignal !== undefined ? { inboxSignal } : {}),
    // tier 2's summary call: tool → [tools.llm] → the agent's provider; a test's model seam answers it too
    summarizerFor: seams.engineFor ?? ((input) => buildToolEngine(config, 'compression', input.agent, deps)),
    toolsFor: (input, hooks) => {
      const wait = <T>(fn: () => Promise<T>): Promise<T> => (hooks.waitingOnUser ? hooks.waitingOnUser(fn) : fn());
      return buildToolRunner(input, hooks, {
        publish: host.publish,
        authorizer: (req, signal) => wait(() => host.authorizer(req, signal)),
        grantStore: host.store,
        store: toolStoreAccess(host.store),
        askUser: (question) => wait(() => host.askUser(input.agent, question)),
        runSignal: host.signal,
        newId,
        security,
        ...(host.code ? { code: host.code } : {}),
        blueprint,
        ...(host.external && host.external.length > 0 ? { external: host.external } : {}),
        ...(host.refreshExternal ? { refreshExternal: host.refreshExternal } : {}),
        ...runToolExtras(config, input, host.dataRoot ?? dataRoot()),
      });
    },
    spawn: host.spawn,
    publish: host.publish,
    clock: host.clock,
    pause: host.pause,
    ...(host.childPause ? { childPause: host.childPause } : {}),
    signal: host.signal,
    newId,
    projectContext: (ws) => {
      let c = contexts.get(ws);
      if (!c) contexts.set(ws, (c = new ProjectContext(ws)));
      return c;
    },
    palette: () => paletteNames(),
    blueprint,
    tokens: new TokenCounter(host.tokens ?? inPlaceBackend),
    breaker: { ...DELEGATION_BREAKER },
    ...(seams.retryBackoffMs !== undefined ? { retryBackoffMs: seams.retryBackoffMs } : {}),
    ...(seams.backstopGraceMs !== undefined ? { backstopGraceMs: seams.backstopGraceMs } : {}),
  };
}
