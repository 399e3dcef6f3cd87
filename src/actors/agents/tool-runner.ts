// The ToolRunner over the tools layer: surfaceFor + adapter + batch runner, delegations wired to this run.
import { z } from 'zod';
import type { ToolCall, ToolDef } from './wire-types.js';
import type { BatchOptions, Publish, ToolCallOutcome, ToolRunner } from './loop-contract.js';
import type { ToolDeclaration, ToolEnv, DelegateTarget } from '../tools/types.js';
import { Surface } from '../tools/surface.js';
import { runBatch, type BatchResult } from '../tools/batch.js';
import type { WorkspaceGuard } from '../tools/workspace-guard.js';
import type { Grants } from '../tools/grants.js';
import type { Authorizer } from '../tools/authorizer.js';
import type { ToolHooks } from './run-agent.js';
import type { CustomAgentDesign } from './run-types.js';
import { MCP_TOOLS_HEADER } from './transient.js';

export interface ToolRunnerDeps {
  agent: string;
  /** The surface from surfaceFor(kind, options): the one wiring production and goldens share. */
  surface: Surface;
  guard: WorkspaceGuard;
  grants: Grants;
  authorizer: Authorizer;
  env: Omit<ToolEnv, 'delegate'>;
  hooks: ToolHooks;
  publish: Publish;
  /** The run's signal, for a delegation started through env.delegate without its call (no tool call behind it). */
  runSignal: AbortSignal;
  newId: () => string;
  /** Extra system-prompt sections of this run's tools (the skills catalogue). */
  sections?: readonly string[];
  /** Whether write delegations may run beside each other, each in its own git worktree (a repository with a commit
   *  and a delegation pool > 1); asked only for a batch holding two or more of them. Absent: never. */
  isolatedWriters?: () => Promise<boolean>;
  /** Live MCP tools: `refresh` has the new list when the catalogue changed; `surfaceWith` builds the surface with it. */
  external?: { refresh: () => Promise<{ tools: readonly ToolDeclaration[]; failed: readonly string[] } | null>; surfaceWith: (external: readonly ToolDeclaration[]) => Surface };
}


const delegateSchema = z.object({
  task: z.string().min(1).describe('What to do, with the goal and what "done" means.'),
  context_refs: z.array(z.string()).default([]).describe('Note refs, artifact ids or file paths the sub-agent should read first.'),
});

/** `delegate_<name>` for a custom agent Meta designed; read-only unless its tools can write (then an isolated writer). */
export function customDelegateTool(design: CustomAgentDesign, mutates: boolean, delegate: ToolHooks['delegate']): ToolDeclaration {
  return {
    name: `delegate_${design.name}`,
    description: `Delegate to the custom agent "${design.name}": ${design.description}`,
    schema: delegateSchema,
    tags: { effect: 'delegate', mutates, serial: false, ...(mutates ? { isolatedWriter: true } : {}), needsAuth: false, pathParams: [], truncation: 'head_tail', display: 'text', brief: (a) => String(a.task ?? '').slice(0, 80) },
    execute: (args, ctx) => delegate(ctx.callId, design.name, args as z.infer<typeof delegateSchema>, ctx.signal),
  };
}

export class SurfaceToolRunner implements ToolRunner {
  private surface: Surface;
  private base: Surface;
  private customCount = 0;
  /** The MCP tools the system prompt listed (the run's start), and the note once they changed (sent each call). */
  private readonly startMcp: string;
  private mcpNote: string | null = null;
  /** Calls of the running batch whose delegation works in its own worktree. */
  private readonly ownTrees = new Set<string>();
  private isolated: Promise<boolean> | null = null;

  constructor(private readonly deps: ToolRunnerDeps) {
    this.base = deps.surface;
    this.startMcp = mcpNames(deps.surface);
    this.surface = this.rebuild();
  }

  /** At a step boundary: MCP servers that became ready (or failed, or changed their tools) since the last look reach
   *  this run's surface; returns the note for the next call, or null while nothing changed since the start. */
  async refreshExternal(): Promise<string | null> {
    const next = await this.deps.external?.refresh();
    if (next === undefined || next === null) return this.mcpNote;
    const old = this.surface;
    this.base = this.deps.external?.surfaceWith(next.tools) ?? this.base;
    this.surface = this.rebuild();
    // a cold tool the model loaded stays loaded
    for (const d of old.list()) if (d.tags.cold === true && !old.isColdPending(d.name) && this.surface.get(d.name)) this.surface.load(d.name);
    const now = this.surface.list().filter((d) => d.name.startsWith('mcp__'));
    this.mcpNote =
      mcpNames(this.surface) === this.startMcp && next.failed.length === 0
        ? null
        : [
            MCP_TOOLS_HEADER,
            'The MCP servers changed since this run started. Its MCP tools are now (call `load_tool` with a name to load one):',
            ...(now.length > 0 ? now.map((d) => `- ${d.name}: ${d.description.split('\n')[0] ?? ''}`) : ['(none)']),
            ...next.failed,
          ].join('\n');
    return this.mcpNote;
  }

  /** The surface grows when Meta registers a custom agent (the Director's only). */
  private rebuild(): Surface {
    const base = this.base.list();
    const customs = this.deps.hooks.customAgents();
    this.customCount = customs.length;
    const writes = (design: CustomAgentDesign): boolean => design.tools.some((t) => this.deps.surface.get(t)?.tags.mutates ?? true);
    const delegate: ToolHooks['delegate'] = (callId, name, args, signal) => this.deps.hooks.delegate(callId, name, args, signal, this.ownTrees.has(callId));
    const extra = this.deps.agent === 'director' ? customs.map((c) => customDelegateTool(c, writes(c), delegate)) : [];
    return new Surface(this.base.agent, [...base, ...extra], this.base.autonomous, this.base.withheld);
  }

  private current(): Surface {
    if (this.deps.hooks.customAgents().length !== this.customCount) this.surface = this.rebuild();
    return this.surface;
  }

  defs(): readonly ToolDef[] {
    return this.current().defs();
  }

  /** End of the run: what the tools hold (the Browser agent's browser) goes. */
  async close(): Promise<void> {
    await this.deps.env.browser?.close();
  }

  mutates(name: string): boolean {
    return this.current().get(name)?.tags.mutates ?? true;
  }

  contextSections(): string[] {
    return [this.current().catalogueSection(), ...(this.deps.sections ?? [])].filter((s) => s !== '');
  }

  async runBatch(calls: readonly ToolCall[], opts: BatchOptions): Promise<{ outcomes: ToolCallOutcome[]; fatal: string | null }> {
    const d = this.deps;
    const surface = this.current();
    const env: ToolEnv = {
      ...d.env,
      // delegate_* tools pass their call (id + signal): the child is named after the call and cancelled with it
      delegate: (agent: DelegateTarget, args, call) => d.hooks.delegate(call?.callId ?? d.newId(), agent, args, call?.signal ?? d.runSignal, call !== undefined && this.ownTrees.has(call.callId)),
    };
    // two write delegations or more in one step run side by side, each in its own worktree, where git allows it
    const writers = calls.filter((c) => surface.get(c.name)?.tags.isolatedWriter === true);
    const isolatedWriters = writers.length >= 2 && d.isolatedWriters !== undefined && (await (this.isolated ??= d.isolatedWriters()));
    this.ownTrees.clear();
    if (isolatedWriters) for (const c of writers) this.ownTrees.add(c.id);
    const res: BatchResult = await runBatch(calls, { surface, guard: d.guard, grants: d.grants, authorizer: d.authorizer, env, ...(opts.maxResultChars !== undefined ? { maxResultChars: opts.maxResultChars } : {}) }, {
      signal: opts.signal,
      isolatedWriters,
      maxParallel: Math.max(1, Math.min(8, opts.maxParallel)),
      ...(opts.beforeEffect ? { beforeEffect: opts.beforeEffect } : {}),
      onStart: (call) => d.publish({ type: 'tool_call_start', agent: d.agent, callId: call.id, name: call.name, brief: briefOf(surface, call) }),
      onResult: (r) => {
        d.publish({ type: 'tool_call_result', agent: d.agent, callId: r.callId, name: r.name, ok: r.status === 'ok' || r.status === 'exit', display: r.display });
        opts.onOutcome?.(outcomeOf(r));
      },
    });
    return { outcomes: res.results.map(outcomeOf), fatal: res.fatal ? res.fatal.message : null };
  }
}

function outcomeOf(r: BatchResult['results'][number]): ToolCallOutcome {
  return { callId: r.callId, name: r.name, content: r.content, ok: r.status === 'ok' || r.status === 'exit', ...(r.outcome?.kind === 'exit' ? { exit: r.outcome.handoff } : {}) };
}

function briefOf(surface: Surface, call: ToolCall): string {
  try {
    const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
    return surface.get(call.name)?.tags.brief(args) ?? call.name;
  } catch {
    return call.name;
  }
}

/** The MCP tool names of a surface, in order: what changed is compared by it. */
function mcpNames(surface: Surface): string {
  return surface.list().filter((d) => d.name.startsWith('mcp__')).map((d) => d.name).join(',');
}
