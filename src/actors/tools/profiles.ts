// Profiles: which tools each agent kind gets, matched on capability tags (effect allow/deny, audience).
// surfaceFor() is the ONE wiring used by production and by the golden surfaces (pitfall 39).
import type { Effect, ToolDeclaration } from './types.js';
import { BUILTIN_TOOLS } from './registry.js';
import loadTool from './load_tool.js';
import { Surface } from './surface.js';

export type AgentKind = 'director' | 'coding' | 'repo' | 'chat' | 'devops' | 'browser' | 'meta' | 'custom';
export const AGENT_KINDS: readonly AgentKind[] = ['director', 'coding', 'repo', 'chat', 'devops', 'browser', 'meta', 'custom'];

export interface Profile {
  allow: readonly Effect[];
  /** Wins over allow: the Director's deny of fs_write and shell is the guarantee it never writes. */
  deny: readonly Effect[];
  /** Sub-agents run delegations serially (their delegations nest; the Director's pool is per run). */
  subAgent: boolean;
}

const ALL_EFFECTS: readonly Effect[] = ['read', 'fs_write', 'shell', 'delegate', 'interact', 'control', 'network', 'memory'];

export const PROFILES: Readonly<Record<Exclude<AgentKind, 'custom'>, Profile>> = {
  director: { allow: ['read', 'memory', 'delegate', 'interact', 'control'], deny: ['fs_write', 'shell'], subAgent: false },
  coding: { allow: ['read', 'fs_write', 'shell', 'memory', 'interact', 'control'], deny: [], subAgent: true },
  repo: { allow: ['read', 'memory', 'delegate', 'interact', 'control'], deny: ['fs_write', 'shell'], subAgent: true },
  chat: { allow: ['memory', 'interact', 'control'], deny: ['read', 'fs_write', 'shell'], subAgent: true },
  devops: { allow: ['read', 'shell', 'memory', 'interact', 'control'], deny: ['fs_write'], subAgent: true },
  // the browser is its only reach: no file tools (file: URLs pass the read boundary in the guard), no shell
  browser: { allow: ['network', 'memory', 'interact', 'control'], deny: ['read', 'fs_write', 'shell'], subAgent: true },
  meta: { allow: [], deny: ALL_EFFECTS, subAgent: true },
};

export const AUTONOMOUS_DECISION_INSTRUCTION =
  'Full-autonomy mode: nobody will answer questions. Make reasonable decisions yourself, state each assumption in your result, and keep going.';

export interface SurfaceOptions {
  /** -Y: removes interaction tools (ask_user_for_help) and sets the autonomous-decision flag. */
  fullYolo?: boolean;
  /** Custom agents: the tools Meta chose, each from the Director's palette. */
  tools?: readonly string[];
  /** Run-time specs (MCP): always cold, never in the built-in registry (pitfall 44). */
  external?: readonly ToolDeclaration[];
  /** Hot tools built for this run (use_skill), matched against the profile like built-ins. */
  runtime?: readonly ToolDeclaration[];
  /** -d: sub-agents disabled for this run; the delegation tools that run them are withheld. */
  disabledAgents?: readonly string[];
  /** Sub-agents that cannot run here (no browser installed), each with why and how to fix it: their delegation
   *  tool stays, its description says so and a call returns that as an error (seeds §2.2). */
  unavailableAgents?: Readonly<Record<string, string>>;
  /** Overrides the built-in registry (registry fixtures only). */
  registry?: readonly ToolDeclaration[];
}

function matches(d: ToolDeclaration, agent: string, p: Profile): boolean {
  const e = d.tags.effect;
  if (!p.allow.includes(e) || p.deny.includes(e)) return false;
  return d.tags.audience === undefined || d.tags.audience.includes(agent);
}

function forAgent(d: ToolDeclaration, p: Profile): ToolDeclaration {
  return p.subAgent && d.tags.effect === 'delegate' && !d.tags.serial ? { ...d, tags: { ...d.tags, serial: true } } : d;
}

/** Tools a custom agent may be given: the Director's capability-matched tools, minus delegation. */
export function directorPalette(registry: readonly ToolDeclaration[] = BUILTIN_TOOLS): ToolDeclaration[] {
  return registry.filter((d) => d !== loadTool && d.tags.audience === undefined && matches(d, 'director', PROFILES.director));
}

/** How an agent gets disabled: `-d`, and for the browser also its config section. */
export function disabledHow(target: string | undefined): string {
  return target === 'browser' ? '-d browser, or [browser] enable = false' : '-d';
}

/** A delegation tool whose agent cannot run: the description leads with why and the fix; a call is that error. */
function degraded(d: ToolDeclaration, unavailable: Readonly<Record<string, string>> | undefined): ToolDeclaration {
  const target = d.tags.effect === 'delegate' ? d.tags.target : undefined;
  const why = target !== undefined ? unavailable?.[target] : undefined;
  if (why === undefined) return d;
  const title = (target ?? '').charAt(0).toUpperCase() + (target ?? '').slice(1);
  const message = `The ${title} agent is unavailable on this machine: ${why}. Do not call ${d.name}; tell the user what is missing.`;
  return { ...d, description: `UNAVAILABLE — ${message}\n\n(When available: ${d.description})`, execute: () => Promise.resolve({ kind: 'error', error: { kind: 'agent_unavailable', message } }) };
}

export function surfaceFor(agent: AgentKind, options: SurfaceOptions = {}): Surface {
  const registry = options.registry ?? BUILTIN_TOOLS;
  const autonomous = options.fullYolo === true;
  let chosen: ToolDeclaration[];
  let profile: Profile;
  if (agent === 'custom') {
    const palette = directorPalette(registry);
    const wanted = options.tools ?? [];
    const missing = wanted.filter((n) => !palette.some((d) => d.name === n));
    if (missing.length > 0) throw new Error(`custom agent: not in the Director's palette: ${missing.join(', ')}`);
    profile = { ...PROFILES.director, subAgent: true };
    chosen = registry.filter((d) => wanted.includes(d.name) || (d.tags.audience?.includes('custom') ?? false));
  } else {
    profile = PROFILES[agent];
    chosen = registry.filter((d) => d !== loadTool && matches(d, agent, profile));
  }
  const external = (options.external ?? []).filter((d) => matches(d, agent, profile)).map((d) => ({ ...d, tags: { ...d.tags, cold: true } }));
  const runtime = (options.runtime ?? []).filter((d) => matches(d, agent, profile));
  let tools = [...chosen, ...runtime, ...external].map((d) => forAgent(d, profile));
  if (autonomous) tools = tools.filter((d) => d.tags.effect !== 'interact');
  const disabled = new Set(options.disabledAgents ?? []);
  const withheld = new Map<string, string>();
  tools = tools.filter((d) => {
    const off = d.tags.effect === 'delegate' && d.tags.target !== undefined && disabled.has(d.tags.target);
    if (off) withheld.set(d.name, `the ${d.tags.target ?? ''} agent is disabled for this run (${disabledHow(d.tags.target)})`);
    return !off;
  });
  tools = tools.map((d) => degraded(d, options.unavailableAgents));
  if (tools.some((d) => d.tags.cold === true)) tools.push(loadTool as ToolDeclaration);
  return new Surface(agent, tools, autonomous, withheld);
}
