// Surface: the tools one agent instance can call, with the deferred ("cold") catalogue and load state.
import type { ToolDef } from '../../runtime/protocol/index.js';
import type { ToolDeclaration } from './types.js';
import { renderParameters } from './define.js';

export interface CatalogueEntry {
  name: string;
  summary: string;
}

export class Surface {
  private readonly byName = new Map<string, ToolDeclaration>();
  private readonly loaded = new Set<string>();
  private defsCache: ToolDef[] | null = null;

  constructor(
    readonly agent: string,
    tools: readonly ToolDeclaration[],
    /** -Y: no ask_user_for_help, and the prompt gets the autonomous-decision instruction. */
    readonly autonomous: boolean,
    /** Tools removed for this run (-d), by name → why: a call to one gets that reason, not "unknown tool". */
    readonly withheld: ReadonlyMap<string, string> = new Map(),
  ) {
    for (const t of tools) this.byName.set(t.name, t);
  }

  get(name: string): ToolDeclaration | undefined {
    return this.byName.get(name);
  }

  /** Why a tool is not on this surface although the agent would normally have it; undefined if it is not withheld. */
  withheldReason(name: string): string | undefined {
    return this.byName.has(name) ? undefined : this.withheld.get(name);
  }

  /** Every callable tool (hot and cold), sorted by name. */
  list(): ToolDeclaration[] {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** A cold tool whose schema the model has not fetched yet: a call only gets the teach receipt. */
  isColdPending(name: string): boolean {
    return this.byName.get(name)?.tags.cold === true && !this.loaded.has(name);
  }

  /** Marks a cold tool loaded; returns the teach receipt (schema + description), null if not cold here. */
  load(name: string): string | null {
    const d = this.byName.get(name);
    if (!d || d.tags.cold !== true) return null;
    this.loaded.add(name);
    this.defsCache = null;
    return `Tool "${name}" is now loaded; call it with arguments matching this JSON Schema:\n${JSON.stringify(renderParameters(d))}\n\n${d.description}`;
  }

  /** Provider definitions: hot tools plus loaded cold ones, sorted by name (prompt-cache stability).
   *  Built once per load state: the loop asks for them on every LLM call. */
  defs(): ToolDef[] {
    this.defsCache ??= this.list()
      .filter((d) => d.tags.cold !== true || this.loaded.has(d.name))
      .map((d) => ({ name: d.name, description: d.description, parameters: renderParameters(d) }));
    return [...this.defsCache];
  }

  /** The system-prompt section listing the deferred tools ('' when there are none). */
  catalogueSection(): string {
    const entries = this.catalogue();
    if (entries.length === 0) return '';
    const lines = entries.map((e) => `- ${e.name}: ${e.summary}`);
    return ['## Deferred tools', '', 'These tools exist but their schemas are not loaded. Call `load_tool` with a name to load one, then call it.', '', ...lines].join('\n');
  }

  /** Cold tools not loaded yet: listed for the model by name and one line. */
  catalogue(): CatalogueEntry[] {
    return this.list()
      .filter((d) => this.isColdPending(d.name))
      .map((d) => ({ name: d.name, summary: d.description.split('\n')[0] ?? '' }));
  }
}
