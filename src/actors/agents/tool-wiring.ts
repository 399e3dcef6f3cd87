// The one wiring from an agent run to its tools (production and in-process tests share it: pitfall 33).
import type { Surface } from '../tools/surface.js';
import { surfaceFor, directorPalette } from '../tools/profiles.js';
import { WorkspaceGuard } from '../tools/workspace-guard.js';
import { Boundary } from '../tools/boundary.js';
import type { ToolSecurity } from '../tools/security.js';
import { Grants } from '../tools/grants.js';
import type { Authorizer } from '../tools/authorizer.js';
import type { McpUpdate } from '../mcp/agent-tools.js';
import type { ToolDeclaration, ToolStoreAccess } from '../tools/types.js';
import type { Publish, ToolRunner } from './loop-contract.js';
import type { ToolHooks } from './run-agent.js';
import type { AgentRunInputParsed } from './run-types.js';
import { SurfaceToolRunner } from './tool-runner.js';
import { repoOf } from './writer-tree.js';
import { storeProjectGrants, type GrantStore } from './project-grants.js';
import type { BrowserAvailability } from '../browser/discover.js';
import { BrowserSession } from '../browser/session.js';
import type { CodeQuery, CodeSeekApi } from '../codeseek/client.js';
import type { Blueprint } from '../blueprint/blueprint.js';

export interface ToolWiring {
  publish: Publish;
  authorizer: Authorizer;
  /** Where project-level grants live (settings.json via the store); every run wires them the same way. */
  grantStore: GrantStore;
  store: ToolStoreAccess;
  askUser(question: string): Promise<string>;
  runSignal: AbortSignal;
  newId(): string;
  /** `[security]`: the read boundary, run_bash's built env and its OS sandbox (tools/security.ts). */
  security: ToolSecurity;
  /** Run-time tools: MCP (always cold) and skills (use_skill, hot, with its catalogue section). */
  external?: readonly ToolDeclaration[];
  /** MCP tools changed since the last look (a server became ready, failed or sent list_changed), else null. */
  refreshExternal?: () => Promise<McpUpdate | null>;
  runtimeTools?: readonly ToolDeclaration[];
  sections?: readonly string[];
  /** Director and Browser runs: the browser discovered for this worker. Missing → the Director's delegate_browser
   *  says so (and how to fix it); the Browser agent's tools return it as their error. */
  browser?: BrowserAvailability;
  /** The code index (the codeseek actor) this run's codeseek_* tools ask; absent: they say code search is off. */
  code?: CodeSeekPort;
  /** The repository blueprint (read_blueprint); absent: the tool says it is not available. */
  blueprint?: Blueprint;
}

/** The codeseek actor as the tools reach it (any workspace; the wiring binds the run's). */
export type CodeSeekPort = Pick<CodeSeekApi, 'ask' | 'imports'>;

/** A run's tool surface (its first request's tools and deferred catalogue; the CLI's pre-sent Director request too). */
export function runSurface(input: AgentRunInputParsed, w: Pick<ToolWiring, 'runtimeTools' | 'browser'>, external: readonly ToolDeclaration[] | undefined): Surface {
  const s = input.settings;
  return surfaceFor(input.role, {
    fullYolo: s.fullYolo,
    disabledAgents: s.disabledAgents,
    ...(input.custom ? { tools: input.custom.tools } : {}),
    ...(external ? { external } : {}),
    ...(w.runtimeTools ? { runtime: w.runtimeTools } : {}),
    ...(w.browser && !w.browser.ok ? { unavailableAgents: { browser: w.browser.reason } } : {}),
  });
}

export function buildToolRunner(input: AgentRunInputParsed, hooks: ToolHooks, w: ToolWiring): ToolRunner {
  const s = input.settings;
  const surfaceWith = (external: readonly ToolDeclaration[] | undefined): Surface => runSurface(input, w, external);
  const surface = surfaceWith(w.external);
  // one boundary for the guard and the walkers (grep, glob) of this run
  const boundary = new Boundary(s.workspace, w.security.policy);
  // one browser per Browser run, started by its first browser call, with run_bash's built env and this boundary
  const browser =
    input.role === 'browser' && w.browser
      ? new BrowserSession({ availability: w.browser, env: w.security.shellEnv, boundary, runSignal: w.runSignal, resumed: input.resumeFrom !== undefined })
      : undefined;
  return new SurfaceToolRunner({
    agent: input.agent,
    surface,
    guard: new WorkspaceGuard(s.workspace, boundary, w.security.shellEnv, w.security.sandbox),
    grants: new Grants(s.yolo || s.fullYolo, storeProjectGrants(w.grantStore, s.userWorkspace ?? s.workspace)),
    authorizer: w.authorizer,
    env: {
      workspace: s.workspace,
      agent: input.agent,
      taskId: s.taskId,
      delegationId: input.delegationId,
      boardId: s.boardId,
      askUser: (q) => w.askUser(q),
      store: w.store,
      boundary,
      shellEnv: w.security.shellEnv,
      sandbox: w.security.sandbox,
      ...(browser ? { browser } : {}),
      ...(w.code ? { code: { ask: (q: CodeQuery) => (w.code as CodeSeekPort).ask(s.workspace, q) } } : {}),
      ...(w.blueprint ? { blueprint: { read: () => (w.blueprint as Blueprint).read(s.workspace, s.projectId) } } : {}),
    },
    hooks,
    publish: w.publish,
    runSignal: w.runSignal,
    newId: w.newId,
    ...(w.sections ? { sections: w.sections } : {}),
    // write delegations side by side need a repository with a commit (a worktree each) and room in the pool
    ...(s.maxParallelDelegations > 1 ? { isolatedWriters: () => repoOf(s.workspace).then((r) => r !== null) } : {}),
    ...(w.refreshExternal ? { external: { refresh: w.refreshExternal, surfaceWith } } : {}),
  });
}

/** Names a custom agent may choose from (the Director's capability-matched tools, no delegations). */
export function paletteNames(): string[] {
  return directorPalette().map((d) => d.name).sort();
}
