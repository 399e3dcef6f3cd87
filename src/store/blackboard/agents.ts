// Agent alias normalisation (one exit, seed rule 8) and mention extraction from note bodies.
export const BUILTIN_AGENTS = ['director', 'coding', 'repo', 'chat', 'devops', 'browser', 'meta'] as const;

/** Strips the spellings that all mean the same agent: `@repo`, `agent:repo`, `repo_agent`, `Repo Agent`. */
function canonical(raw: string): string {
  let s = raw.trim().toLowerCase();
  s = s.replace(/^@/, '').replace(/^agent[:/]/, '');
  s = s.replace(/[\s_-]+agent$/, '');
  return s.replace(/\s+/g, '_');
}

export class AgentDirectory {
  private ids = new Set<string>();
  private aliases = new Map<string, string>();

  constructor(ids: readonly string[] = BUILTIN_AGENTS) {
    for (const id of ids) this.register(id);
  }

  register(id: string, aliases: readonly string[] = []): void {
    const c = canonical(id);
    this.ids.add(c);
    for (const a of aliases) this.aliases.set(canonical(a), c);
  }

  /** The known agent id for any accepted spelling, else null (the caller reports it as unresolved). */
  normalize(ref: string): string | null {
    const c = canonical(ref);
    if (this.ids.has(c)) return c;
    return this.aliases.get(c) ?? null;
  }

  /** `@agent` mentions in a body: known ids and aliases only (unknown `@words` ignored), unioned with `explicit`. */
  extractMentions(body: string, explicit: readonly string[] = []): string[] {
    const found = new Set<string>();
    for (const m of body.matchAll(/(?<![\w@.])@([A-Za-z][A-Za-z0-9_:-]*)/g)) {
      const id = this.normalize(m[1].replace(/[:_-]+$/, ''));
      if (id) found.add(id);
    }
    for (const e of explicit) {
      const id = this.normalize(e);
      if (id) found.add(id);
    }
    return [...found];
  }
}
